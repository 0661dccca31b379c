#!/usr/bin/env bash
# Footprint's local scale-out cluster on 127.0.0.1: two ClickHouse shards (configs in
# deploy/clickhouse/), optionally N collectors (`footprint serve --store clickhouse://…`) and
# HAProxy in front of them (deploy/haproxy/haproxy.cfg).
#
#   scripts/cluster.sh start  [--base PORT] [--state DIR] [--shards N] [--collectors N] [--haproxy]
#                             [--footprint PATH]
#   scripts/cluster.sh stop   [--state DIR]          stops everything `start` started (idempotent)
#   scripts/cluster.sh status [--state DIR]          what runs, and the env file
#   scripts/cluster.sh stop-shard N / start-shard N [--state DIR]   one shard, for fault drills
#                                                    (stop-shard kills it: SIGKILL, as a crash)
#   scripts/cluster.sh clean  [--state DIR]          kill everything, then delete the state folder
#
# Ports from the base B (default $CLUSTER_PORT_BASE, else 23000): HAProxy B+80, collectors B+81…,
# shard i's HTTP B+122+i, TCP B+1100+i, interserver B+1200+i. Everything — configs, data, logs,
# pid files — lives in the state folder (default $CLUSTER_STATE, else .build/cluster), and `start`
# writes DIR/cluster.env:
#   FOOTPRINT_CLICKHOUSE_URL   clickhouse://127.0.0.1:HTTP/footprint?cluster=footprint&shards=…
#   FOOTPRINT_COLLECTOR_URLS   the collectors, comma-separated (when started)
#   FOOTPRINT_HAPROXY_URL      where apps send (when started)
#   FOOTPRINT_ADMIN_TOKEN, FOOTPRINT_WRITE_KEY   of the collectors' shared metadata file
# Load it with `set -a; . DIR/cluster.env; set +a`. Runs as the current user (root in CI too).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
command="${1:-}"
[ $# -gt 0 ] && shift
base="${CLUSTER_PORT_BASE:-23000}"
state="${CLUSTER_STATE:-$root/.build/cluster}"
shards=2
collectors=0
haproxy=0
footprint="${FOOTPRINT:-$root/.build/debug/footprint}"
shard_number=""

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
    exit 2
}

case "$command" in
    stop-shard | start-shard)
        shard_number="${1:-}"
        [ $# -gt 0 ] && shift
        [[ "$shard_number" =~ ^[1-9][0-9]*$ ]] || usage
        ;;
esac
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base="$2"; shift 2 ;;
        --state) state="$2"; shift 2 ;;
        --shards) shards="$2"; shift 2 ;;
        --collectors) collectors="$2"; shift 2 ;;
        --haproxy) haproxy=1; shift ;;
        --footprint) footprint="$2"; shift 2 ;;
        *) usage ;;
    esac
done
[[ "$base" =~ ^[0-9]+$ ]] && [ "$base" -ge 1024 ] && [ "$base" -le 64000 ] || {
    echo "cluster.sh: the port base must be a number from 1024 to 64000" >&2
    exit 2
}
[[ "$shards" =~ ^[1-9]$ ]] && [[ "$collectors" =~ ^[0-9]$ ]] || {
    echo "cluster.sh: 1 to 9 shards, 0 to 9 collectors" >&2
    exit 2
}
mkdir -p "$state"
state="$(cd "$state" && pwd)"
env_file="$state/cluster.env"

# The recorded settings of a started cluster win over the command line for every other command.
if [ "$command" != start ] && [ -f "$state/cluster.settings" ]; then
    # shellcheck source=/dev/null
    . "$state/cluster.settings"
fi

http_port() { echo $((base + 122 + $1)); }
tcp_port() { echo $((base + 1100 + $1)); }
interserver_port() { echo $((base + 1200 + $1)); }
collector_port() { echo $((base + 80 + $1)); }
haproxy_port() { echo $((base + 80)); }

# One HTTP/1.0 GET over bash's /dev/tcp (no curl needed); prints the body, fails when nothing answers.
http_get() {
    local port="$1" path="$2" response
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
    response="$(timeout 5 cat <&3)" || { exec 3<&-; return 1; }
    exec 3<&-
    case "$response" in "HTTP/1."?" 200"*) printf '%s' "${response#*$'\r\n\r\n'}" ;; *) return 1 ;; esac
}

# Whether the pid in FILE runs and its command line contains MARK (a stale pid file whose number
# now belongs to another process is not ours).
running() {
    local file="$1" mark="$2" pid
    [ -f "$file" ] || return 1
    pid="$(cat "$file")"
    [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$mark"
}

# Stops the process of FILE when it runs (SIGNAL, default TERM; KILL after 60 s); removes the
# pid file. ClickHouse keeps serving open keep-alive connections after TERM, so a shard that
# collectors still use can take the whole minute.
stop_process() {
    local file="$1" mark="$2" name="$3" signal="${4:-TERM}" pid waited=0
    if running "$file" "$mark"; then
        pid="$(cat "$file")"
        kill -"$signal" "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 600 ]; do
            sleep 0.1
            waited=$((waited + 1))
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
        echo "stopped $name (pid $pid)"
    fi
    rm -f "$file"
}

wait_until() {
    local what="$1" seconds="$2"
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "cluster.sh: $what did not answer within $seconds s" >&2
            return 1
        fi
        sleep 0.2
    done
}

# Closes every descriptor above 2 this (sub)shell inherited, so a long-lived server started from it
# does not keep open a pipe its caller reads to the end (a test harness's, say).
close_inherited() {
    local fd
    for fd in $(ls "/proc/$BASHPID/fd"); do
        [ "$fd" -gt 2 ] && eval "exec $fd>&-"
    done 2>/dev/null
    return 0
}

shard_answers() { [ "$(http_get "$(http_port "$1")" '/?query=SELECT%201')" = 1 ]; }

start_shard() {
    local i="$1" entries="" j
    local dir="$state/shard$i"
    mkdir -p "$dir/log"
    for j in $(seq 1 "$shards"); do
        entries+="            <shard><replica><host>127.0.0.1</host><port>$(tcp_port "$j")</port></replica></shard>"$'\n'
    done
    SHARD_ROOT="$dir" SHARD_HTTP="$(http_port "$i")" SHARD_TCP="$(tcp_port "$i")" \
        SHARD_INTERSERVER="$(interserver_port "$i")" SHARD_ENTRIES="$entries" python3 - \
        "$root/deploy/clickhouse/config.xml" "$dir/config.xml" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
for word, key in [("ROOT", "SHARD_ROOT"), ("HTTP_PORT", "SHARD_HTTP"), ("TCP_PORT", "SHARD_TCP"),
                  ("INTERSERVER_PORT", "SHARD_INTERSERVER"), ("SHARDS", "SHARD_ENTRIES")]:
    text = text.replace("@" + word + "@", os.environ[key].rstrip("\n"))
open(sys.argv[2], "w").write(text)
PY
    cp "$root/deploy/clickhouse/users.xml" "$dir/users.xml"
    if running "$dir/pid" "$dir/config.xml"; then
        echo "shard $i already runs"
        return 0
    fi
    # Another server on the port would answer for this one (and outlive its stop).
    if shard_answers "$i" 2>/dev/null; then
        echo "cluster.sh: port $(http_port "$i") already answers (another server)" >&2
        return 1
    fi
    (close_inherited && cd "$dir" && exec clickhouse-server --config-file="$dir/config.xml" >>"$dir/log/stdout.log" 2>&1) &
    echo $! >"$dir/pid"
    wait_until "shard $i (port $(http_port "$i"))" 120 shard_answers "$i" && kill -0 "$(cat "$dir/pid")" || {
        tail -n 20 "$dir/log/clickhouse-server.err.log" >&2 2>/dev/null || true
        return 1
    }
    echo "shard $i: http://127.0.0.1:$(http_port "$i") (tcp $(tcp_port "$i"))"
}

clickhouse_url() {
    local list="" i
    for i in $(seq 1 "$shards"); do list+="${list:+,}127.0.0.1:$(http_port "$i")"; done
    echo "clickhouse://127.0.0.1:$(http_port 1)/footprint?cluster=footprint&shards=$list"
}

# A new admin token of the shape the server makes its own (AccessConfiguration.makeToken):
# fpa_ and 32 hexadecimal digits.
new_admin_token() {
    printf 'fpa_%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
}

collector_answers() { http_get "$(collector_port "$1")" /health; }

start_collector() {
    local i="$1" port
    local dir="$state/collector$i"
    port="$(collector_port "$i")"
    mkdir -p "$dir"
    [ -x "$footprint" ] || {
        echo "cluster.sh: no footprint executable at $footprint (swift build --product footprint)" >&2
        return 1
    }
    if collector_answers "$i" 2>/dev/null; then
        echo "cluster.sh: port $port already answers (another server)" >&2
        return 1
    fi
    (close_inherited && exec "$footprint" serve --store "$(clickhouse_url)" --db "$state/metadata.sqlite" \
        --port "$port" --trusted-proxy 127.0.0.1 --admin-token "$admin_token" \
        >"$dir/output.log" 2>&1) &
    echo $! >"$dir/pid"
    wait_until "collector $i (port $port)" 120 collector_answers "$i" && kill -0 "$(cat "$dir/pid")" || {
        tail -n 20 "$dir/output.log" >&2
        return 1
    }
    echo "collector $i: http://127.0.0.1:$port"
}

start_haproxy() {
    local dir="$state/haproxy" servers="" i
    mkdir -p "$dir"
    for i in $(seq 1 "$collectors"); do
        servers+="    server collector$i 127.0.0.1:$(collector_port "$i") check"$'\n'
    done
    HAPROXY_PORT="$(haproxy_port)" HAPROXY_PIDFILE="$dir/pid" HAPROXY_SERVERS="$servers" python3 - \
        "$root/deploy/haproxy/haproxy.cfg" "$dir/haproxy.cfg" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
for word, key in [("PORT", "HAPROXY_PORT"), ("PIDFILE", "HAPROXY_PIDFILE"), ("SERVERS", "HAPROXY_SERVERS")]:
    text = text.replace("@" + word + "@", os.environ[key].rstrip("\n"))
open(sys.argv[2], "w").write(text)
PY
    # -D: HAProxy forks into the background and writes its own pid file.
    (close_inherited && exec haproxy -D -f "$dir/haproxy.cfg" >"$dir/output.log" 2>&1) || {
        cat "$dir/output.log" >&2
        return 1
    }
    wait_until "HAProxy (port $(haproxy_port))" 60 http_get "$(haproxy_port)" /health
    echo "haproxy: http://127.0.0.1:$(haproxy_port)"
}

# The write key the collectors printed when they opened the shared metadata file.
write_key() {
    sed -n 's/.*write key: \([^[:space:]]*\).*/\1/p' "$state/collector1/output.log" 2>/dev/null | head -n 1
}

write_env() {
    local urls="" i
    for i in $(seq 1 "$collectors"); do urls+="${urls:+,}http://127.0.0.1:$(collector_port "$i")"; done
    {
        echo "FOOTPRINT_CLICKHOUSE_URL='$(clickhouse_url)'"
        [ "$collectors" -gt 0 ] && echo "FOOTPRINT_COLLECTOR_URLS='$urls'"
        [ "$haproxy" = 1 ] && echo "FOOTPRINT_HAPROXY_URL='http://127.0.0.1:$(haproxy_port)'"
        if [ "$collectors" -gt 0 ]; then
            echo "FOOTPRINT_ADMIN_TOKEN='$admin_token'"
            echo "FOOTPRINT_WRITE_KEY='$(write_key)'"
        fi
    } >"$env_file"
}

stop_all() {
    local signal="${1:-TERM}" dir
    stop_process "$state/haproxy/pid" "$state/haproxy/haproxy.cfg" haproxy "$signal"
    for dir in "$state"/collector*; do
        [ -d "$dir" ] && stop_process "$dir/pid" "$state/metadata.sqlite" "$(basename "$dir")" "$signal"
    done
    for dir in "$state"/shard*; do
        [ -d "$dir" ] && stop_process "$dir/pid" "$dir/config.xml" "$(basename "$dir")" "$signal"
    done
    rm -f "$env_file"
    return 0
}

case "$command" in
    start)
        [ "$haproxy" = 1 ] && [ "$collectors" = 0 ] && collectors=2
        for dir in "$state"/shard* "$state"/collector*; do
            if [ -d "$dir" ] && { running "$dir/pid" "$dir/config.xml" || running "$dir/pid" "$state/metadata.sqlite"; }; then
                echo "cluster.sh: a cluster already runs from $state (scripts/cluster.sh stop --state $state)" >&2
                exit 1
            fi
        done
        printf 'base=%s\nshards=%s\ncollectors=%s\nhaproxy=%s\n' "$base" "$shards" "$collectors" "$haproxy" \
            >"$state/cluster.settings"
        admin_token="${FOOTPRINT_ADMIN_TOKEN:-$(new_admin_token)}"
        trap 'echo "cluster.sh: start failed, stopping what started" >&2; stop_all' ERR
        for i in $(seq 1 "$shards"); do start_shard "$i"; done
        for i in $(seq 1 "$collectors"); do start_collector "$i"; done
        [ "$haproxy" = 1 ] && start_haproxy
        trap - ERR
        write_env
        echo "environment: $env_file"
        ;;
    stop)
        stop_all
        ;;
    clean)
        stop_all KILL
        rm -rf "$state"
        ;;
    stop-shard)
        stop_process "$state/shard$shard_number/pid" "$state/shard$shard_number/config.xml" "shard$shard_number" KILL
        ;;
    start-shard)
        [ -d "$state/shard$shard_number" ] || { echo "cluster.sh: no shard $shard_number in $state" >&2; exit 1; }
        start_shard "$shard_number"
        ;;
    status)
        status=0
        for dir in "$state"/shard*; do
            [ -d "$dir" ] || continue
            i="${dir##*shard}"
            if running "$dir/pid" "$dir/config.xml" && shard_answers "$i"; then
                echo "shard $i: up, http://127.0.0.1:$(http_port "$i")"
            else
                echo "shard $i: down"
                status=1
            fi
        done
        for dir in "$state"/collector*; do
            [ -d "$dir" ] || continue
            i="${dir##*collector}"
            if running "$dir/pid" "$state/metadata.sqlite" && collector_answers "$i" >/dev/null; then
                echo "collector $i: up, http://127.0.0.1:$(collector_port "$i")"
            else
                echo "collector $i: down"
                status=1
            fi
        done
        if [ -d "$state/haproxy" ]; then
            if running "$state/haproxy/pid" "$state/haproxy/haproxy.cfg"; then
                echo "haproxy: up, http://127.0.0.1:$(haproxy_port)"
            else
                echo "haproxy: down"
                status=1
            fi
        fi
        [ -f "$env_file" ] && { echo "environment ($env_file):"; cat "$env_file"; }
        exit "$status"
        ;;
    *) usage ;;
esac
