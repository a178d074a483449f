# This file must be sourced from fish: `source <prefix>/bin/activate.fish`. It gives the shell
# the environment of its aitk-env prefix (the one bin/aitk-run gives), and `deactivate` restores
# what was there before. Written by `aitk-env setup`, which overwrites changes made here.

function deactivate --description 'Leave the aitk-env prefix'
    for name in $_aitk_touched
        set -l saved _aitk_old_$name
        if set -q $saved
            set -gx $name $$saved
            set -e $saved
        else
            set -e $name
        end
    end
    set -q _aitk_touched; and set -e _aitk_touched
    if test "$argv[1]" != nondestructive
        functions -e deactivate
    end
end

# Leave an earlier activation first, so its saved values are the ones restored.
deactivate nondestructive

set -g _aitk_prefix @FISH_PREFIX@
set -g _aitk_scripts @FISH_SCRIPTS@
set -g _aitk_touched

# Saves NAME's value (or that it was unset) the first time it changes, for deactivate.
function _aitk_remember
    contains -- $argv[1] $_aitk_touched; and return
    set -g -a _aitk_touched $argv[1]
    if set -q $argv[1]
        set -g _aitk_old_$argv[1] $$argv[1]
    end
end

# Whether folder $argv[1] holds CUDA, cuDNN, NCCL or OpenMP runtimes (judged from its text, ASCII
# case ignored, / and \ alike): they would shadow the libraries the torch wheels bundle.
function _aitk_shadows
    set -l text (string lower -- "/$argv[1]/" | string replace -a '\\' /)
    for needle in @FISH_KEEP_NEEDLES@
        string match -q -- "*$needle*" "$text"; and return 1
    end
    for needle in @FISH_SHADOW_NEEDLES@
        string match -q -- "*$needle*" "$text"; and return 0
    end
    return 1
end

# Sets NAME to VALUE unless the user already set NAME.
function _aitk_default
    set -q $argv[1]; and return
    _aitk_remember $argv[1]
    set -gx $argv[1] $argv[2]
end

# Python and pip must not look outside the prefix.
for name in @FISH_SCRUBBED_NAMES@ (set -n -x | string match -r -- '^PIP_[A-Za-z0-9_]*$')
    if set -q $name
        _aitk_remember $name
        set -e $name
    end
end

_aitk_remember VIRTUAL_ENV
set -gx VIRTUAL_ENV $_aitk_prefix

# The prefix's programs first, each folder once.
_aitk_remember PATH
set -g _aitk_list $_aitk_scripts
for entry in $PATH
    test "$entry" = "$_aitk_scripts"; or set -a _aitk_list $entry
end
set -gx PATH $_aitk_list

# Library folders that would shadow the wheels' runtimes go, and so do empty entries.
if set -q LD_LIBRARY_PATH
    set -g _aitk_list
    for entry in (string split -- : "$LD_LIBRARY_PATH")
        if test -n "$entry"; and not _aitk_shadows "$entry"
            set -a _aitk_list $entry
        end
    end
    set -l joined (string join -- : $_aitk_list)
    if test "$joined" != "$LD_LIBRARY_PATH"
        _aitk_remember LD_LIBRARY_PATH
        if set -q _aitk_list[1]
            set -gx LD_LIBRARY_PATH $_aitk_list
        else
            set -e LD_LIBRARY_PATH
        end
    end
end

# The lock's variables.
@FISH_VARIABLES@
functions -e _aitk_remember _aitk_shadows _aitk_default
set -e _aitk_prefix
set -e _aitk_scripts
set -e _aitk_list
