# Sourced by .ci scripts: a local package index served by Python's http.server on 127.0.0.1.
# start_index_server DIR LOG [PROBE]: serves DIR on a free port, waits until PROBE (default
# /simple/) answers, and sets index_port and index_pid (the caller stops it: kill "$index_pid").
# Returns 1 when it never answers. (.ci/quickstart keeps its own: it prefers nginx and retries other ports.)
start_index_server() {
    local dir=$1 log=$2 probe=${3:-/simple/}
    index_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server --bind 127.0.0.1 --directory "$dir" "$index_port" >"$log" 2>&1 &
    index_pid=$!
    for _ in $(seq 50); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$index_port$probe', timeout=2)" \
            2>/dev/null && return 0
        sleep 0.1
    done
    echo "the index server on port $index_port did not answer (see $log)" >&2
    return 1
}
