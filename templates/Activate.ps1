# Dot-source this file in PowerShell: `. <prefix>\Scripts\Activate.ps1`. It gives the session the
# environment of its aitk-env prefix (the one Scripts\aitk-run.cmd gives), and `deactivate`
# restores what was there before. Written by `aitk-env setup`, which overwrites changes made here.

function global:deactivate([switch] $NonDestructive) {
    if (Get-Variable -Name _AITK_TOUCHED -Scope Global -ErrorAction SilentlyContinue) {
        foreach ($name in @($global:_AITK_TOUCHED.Keys)) {
            $old = $global:_AITK_TOUCHED[$name]
            if ($null -eq $old) {
                Remove-Item -LiteralPath "Env:$name" -ErrorAction SilentlyContinue
            } else {
                [Environment]::SetEnvironmentVariable($name, $old)
            }
        }
        Remove-Variable -Name _AITK_TOUCHED -Scope Global
    }
    if (Test-Path -Path Function:\_AITK_OLD_PROMPT) {
        Copy-Item -Path Function:\_AITK_OLD_PROMPT -Destination Function:\prompt
        Remove-Item -Path Function:\_AITK_OLD_PROMPT
    }
    if (-not $NonDestructive) {
        Remove-Item -Path Function:\deactivate
    }
}

# Leave an earlier activation first, so its saved values are the ones restored.
deactivate -NonDestructive

$_aitkPrefix = @PS_PREFIX@
$_aitkScripts = @PS_SCRIPTS@
# Name -> value before activation ($null: unset); keys compare without case, as Windows does.
$global:_AITK_TOUCHED = [ordered]@{}

function _aitk_set([string] $Name, $Value) {
    if (-not $global:_AITK_TOUCHED.Contains($Name)) {
        $global:_AITK_TOUCHED[$Name] = [Environment]::GetEnvironmentVariable($Name)
    }
    if ($null -eq $Value) {
        Remove-Item -LiteralPath "Env:$Name" -ErrorAction SilentlyContinue
    } else {
        [Environment]::SetEnvironmentVariable($Name, $Value)
    }
}

# Sets NAME to VALUE unless the user already set NAME.
function _aitk_default([string] $Name, [string] $Value) {
    if ($null -eq [Environment]::GetEnvironmentVariable($Name)) { _aitk_set $Name $Value }
}

# Whether folder $Entry holds CUDA, cuDNN, NCCL or OpenMP runtimes (judged from its text, case
# ignored, / and \ alike): they would shadow the DLLs the torch wheels bundle.
function _aitk_shadows([string] $Entry) {
    $text = ('/' + $Entry + '/').Replace('\', '/')
    foreach ($needle in @(@PS_KEEP_NEEDLES@)) { if ($text -like "*$needle*") { return $false } }
    foreach ($needle in @(@PS_SHADOW_NEEDLES@)) { if ($text -like "*$needle*") { return $true } }
    return $false
}

# Python and pip must not look outside the prefix.
$_aitkNames = @(@PS_SCRUBBED_NAMES@) + @(Get-ChildItem -Path Env: | ForEach-Object { $_.Name } |
    Where-Object { $_ -match '^PIP_[A-Za-z0-9_]*$' })
foreach ($_aitkName in $_aitkNames) {
    if ($null -ne [Environment]::GetEnvironmentVariable($_aitkName)) { _aitk_set $_aitkName $null }
}
_aitk_set 'VIRTUAL_ENV' $_aitkPrefix

# The prefix's programs first, each folder once; quotes around entries removed; folders that
# would shadow the wheels' DLLs dropped.
$_aitkKept = @($_aitkScripts)
foreach ($_aitkEntry in ([string] $env:PATH).Split(';')) {
    $_aitkEntry = $_aitkEntry.Replace('"', '')
    if ($_aitkEntry -eq '' -or $_aitkEntry -eq $_aitkScripts -or (_aitk_shadows $_aitkEntry)) {
        continue
    }
    $_aitkKept += $_aitkEntry
}
_aitk_set 'PATH' ($_aitkKept -join ';')

# The lock's variables.
@PS_VARIABLES@
if (-not $env:VIRTUAL_ENV_DISABLE_PROMPT) {
    function global:_AITK_OLD_PROMPT { '' }
    Copy-Item -Path Function:\prompt -Destination Function:\_AITK_OLD_PROMPT -ErrorAction SilentlyContinue
    function global:prompt {
        Write-Host -NoNewline -ForegroundColor Green @PS_PROMPT@
        _AITK_OLD_PROMPT
    }
}

Remove-Item -Path Function:\_aitk_set, Function:\_aitk_default, Function:\_aitk_shadows -ErrorAction SilentlyContinue
Remove-Variable -Name _aitkPrefix, _aitkScripts, _aitkNames, _aitkName, _aitkKept, _aitkEntry -ErrorAction SilentlyContinue
