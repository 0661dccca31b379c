#!/usr/bin/env bash
# Footprint's local scale-out cluster on loopback: two ClickHouse shards (configs in
# deploy/clickhouse/), optionally with N replicas each and a ZooKeeper (deploy/zookeeper/),
# optionally N collectors (`footprint serve --store clickhouse://…`) and HAProxy in front of them
# (deploy/haproxy/haproxy.cfg).
#
#   scripts/cluster.sh start  [--base PORT] [--state DIR] [--shards N] [--replicas N] [--collectors N]
#                             [--haproxy] [--postgres] [--footprint PATH]
#   scripts/cluster.sh stop   [--state DIR]          stops everything `start` started (idempotent)
#   scripts/cluster.sh status [--state DIR]          what runs, and the env file
#   scripts/cluster.sh stop-shard N / start-shard N [--state DIR]   one shard (every replica of
#                                                    it), for fault drills (stop-shard kills it:
#                                                    SIGKILL, as a crash)
#   scripts/cluster.sh stop-replica S R / start-replica S R [--state DIR]   replica R of shard S
#   scripts/cluster.sh wipe-replica S R [--state DIR]  deletes a stopped replica's data folder (a
#                                                    lost disk); start-replica then gives it its
#                                                    tables' definitions from a running twin, and it
#                                                    fetches every part from its twins
#   scripts/cluster.sh stop-zookeeper / start-zookeeper [--state DIR]   ZooKeeper (stop: SIGKILL)
#   scripts/cluster.sh clean  [--state DIR]          kill everything, then delete the state folder
#
# With --replicas 1 (the default) the shards listen on 127.0.0.1 and nothing else starts. With
# --replicas N (2 to 4) every server gets a loopback address of its own, as a machine of its own
# would (127.0.1.(10*S+R) for replica R of shard S, ZooKeeper 127.0.1.1), and the store URL says
# `replicas=N`, so the store makes Replicated* tables. With --postgres a PostgreSQL 15 of its own
# (127.0.1.2, data in DIR/postgres) keeps the collectors' metadata (`--meta postgres://…`) instead
# of the shared file DIR/metadata.sqlite.
#
# Ports from the base B (default $CLUSTER_PORT_BASE, else 23000): HAProxy B+80, collectors B+81…,
# ZooKeeper B+90, PostgreSQL B+91, and for ClickHouse server k (replica R of shard S is k = (S-1)*N+R; shard S
# without replicas) HTTP B+122+k, TCP B+1100+k, interserver B+1200+k. Everything — configs, data,
# logs, pid files — lives in the state folder (default $CLUSTER_STATE, else .build/cluster), and
# `start` writes DIR/cluster.env:
#   FOOTPRINT_CLICKHOUSE_URL   clickhouse://HOST:HTTP/footprint?cluster=footprint[&replicas=N]&shards=…
#   FOOTPRINT_COLLECTOR_URLS   the collectors, comma-separated (when started)
#   FOOTPRINT_HAPROXY_URL      where apps send (when started)
#   FOOTPRINT_POSTGRES_URL     the collectors' metadata (with --postgres)
#   FOOTPRINT_ADMIN_TOKEN, FOOTPRINT_WRITE_KEY   of the collectors' shared metadata
# Load it with `set -a; . DIR/cluster.env; set +a`. Runs as the current user (root in CI too).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
command="${1:-}"
[ $# -gt 0 ] && shift
base="${CLUSTER_PORT_BASE:-23000}"
state="${CLUSTER_STATE:-$root/.build/cluster}"
shards=2
replicas=1
collectors=0
haproxy=0
postgres=0
footprint="${FOOTPRINT:-$root/.build/debug/footprint}"
shard_number=""
replica_number=""

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
    stop-replica | start-replica | wipe-replica)
        shard_number="${1:-}"
        replica_number="${2:-}"
        [ $# -gt 1 ] && shift 2
        [[ "$shard_number" =~ ^[1-9]$ ]] && [[ "$replica_number" =~ ^[1-9]$ ]] || usage
        ;;
esac
while [ $# -gt 0 ]; do
    case "$1" in
        --base) base="$2"; shift 2 ;;
        --state) state="$2"; shift 2 ;;
        --shards) shards="$2"; shift 2 ;;
        --replicas) replicas="$2"; shift 2 ;;
        --collectors) collectors="$2"; shift 2 ;;
        --haproxy) haproxy=1; shift ;;
        --postgres) postgres=1; shift ;;
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
[[ "$replicas" =~ ^[1-4]$ ]] || {
    echo "cluster.sh: 1 to 4 replicas of each shard" >&2
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

# ClickHouse server k (1 to shards × replicas): replica R of shard S is k = (S-1)*replicas+R.
servers() { echo $((shards * replicas)); }
server_index() { echo $((($1 - 1) * replicas + $2)); }
server_shard() { echo $((($1 - 1) / replicas + 1)); }
server_replica() { echo $((($1 - 1) % replicas + 1)); }
# Its name and folder: shardS, or shardS-replicaR when shards have replicas.
server_name() {
    if [ "$replicas" = 1 ]; then
        echo "shard$1"
    else
        echo "shard$(server_shard "$1")-replica$(server_replica "$1")"
    fi
}
server_dir() { echo "$state/$(server_name "$1")"; }
# Its loopback address: 127.0.0.1, or one of its own when shards have replicas.
server_host() {
    if [ "$replicas" = 1 ]; then
        echo 127.0.0.1
    else
        echo "127.0.1.$((10 * $(server_shard "$1") + $(server_replica "$1")))"
    fi
}
http_port() { echo $((base + 122 + $1)); }
tcp_port() { echo $((base + 1100 + $1)); }
interserver_port() { echo $((base + 1200 + $1)); }
collector_port() { echo $((base + 80 + $1)); }
haproxy_port() { echo $((base + 80)); }
zookeeper_host() { echo 127.0.1.1; }
zookeeper_port() { echo $((base + 90)); }

# One HTTP/1.0 GET over bash's /dev/tcp (no curl needed) to HOST (default 127.0.0.1); prints the
# body, fails when nothing answers.
http_get() {
    local port="$1" path="$2" host="${3:-127.0.0.1}" response
    exec 3<>"/dev/tcp/$host/$port" || return 1
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$path" "$host" >&3
    response="$(timeout -s KILL 5 cat <&3)" || { exec 3<&-; return 1; }
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

server_answers() { [ "$(http_get "$(http_port "$1")" '/?query=SELECT%201' "$(server_host "$1")")" = 1 ]; }

# The shard elements of the `footprint` cluster: each shard's replicas, internal_replication when
# it has several (a Distributed table writes to one replica, which copies to the others).
shard_entries() {
    local entries="" i r k
    for i in $(seq 1 "$shards"); do
        entries+="            <shard>"
        [ "$replicas" -gt 1 ] && entries+="<internal_replication>true</internal_replication>"
        for r in $(seq 1 "$replicas"); do
            k="$(server_index "$i" "$r")"
            entries+="<replica><host>$(server_host "$k")</host><port>$(tcp_port "$k")</port></replica>"
        done
        entries+="</shard>"$'\n'
    done
    printf '%s' "$entries"
}

# deploy/clickhouse/replication.xml filled in for server k (nothing without replicas).
replication_section() {
    local k="$1"
    [ "$replicas" -gt 1 ] || return 0
    sed -e '/^<!--/,/-->$/d' -e "s/@ZOOKEEPER_HOST@/$(zookeeper_host)/" -e "s/@ZOOKEEPER_PORT@/$(zookeeper_port)/" \
        -e "s/@SHARD@/$(server_shard "$k")/" -e "s/@REPLICA@/$(server_name "$k")/" \
        "$root/deploy/clickhouse/replication.xml"
}

start_server() {
    local k="$1" dir
    dir="$(server_dir "$k")"
    mkdir -p "$dir/log"
    SHARD_ROOT="$dir" SHARD_HOST="$(server_host "$k")" SHARD_HTTP="$(http_port "$k")" SHARD_TCP="$(tcp_port "$k")" \
        SHARD_INTERSERVER="$(interserver_port "$k")" SHARD_ENTRIES="$(shard_entries)" \
        SHARD_REPLICATION="$(replication_section "$k")" python3 - \
        "$root/deploy/clickhouse/config.xml" "$dir/config.xml" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
for word, key in [("ROOT", "SHARD_ROOT"), ("HOST", "SHARD_HOST"), ("HTTP_PORT", "SHARD_HTTP"),
                  ("TCP_PORT", "SHARD_TCP"), ("INTERSERVER_PORT", "SHARD_INTERSERVER"),
                  ("SHARDS", "SHARD_ENTRIES"), ("REPLICATION", "SHARD_REPLICATION")]:
    text = text.replace("@" + word + "@", os.environ[key].rstrip("\n"))
open(sys.argv[2], "w").write(text)
PY
    cp "$root/deploy/clickhouse/users.xml" "$dir/users.xml"
    if running "$dir/pid" "$dir/config.xml"; then
        echo "$(server_name "$k") already runs"
        return 0
    fi
    # Another server on the port would answer for this one (and outlive its stop).
    if server_answers "$k" 2>/dev/null; then
        echo "cluster.sh: $(server_host "$k"):$(http_port "$k") already answers (another server)" >&2
        return 1
    fi
    restore_definitions "$k"
    (close_inherited && cd "$dir" && exec clickhouse-server --config-file="$dir/config.xml" >>"$dir/log/stdout.log" 2>&1) &
    echo $! >"$dir/pid"
    wait_until "$(server_name "$k") (port $(http_port "$k"))" 120 server_answers "$k" && kill -0 "$(cat "$dir/pid")" || {
        tail -n 20 "$dir/log/clickhouse-server.err.log" >&2 2>/dev/null || true
        return 1
    }
    echo "$(server_name "$k"): http://$(server_host "$k"):$(http_port "$k") (tcp $(tcp_port "$k"))"
}

stop_server() {
    local k="$1" signal="${2:-TERM}" dir
    dir="$(server_dir "$k")"
    stop_process "$dir/pid" "$dir/config.xml" "$(server_name "$k")" "$signal"
}

# Runs one SQL statement on server k over HTTP (POST, so it may change things); prints the answer.
server_sql() {
    local k="$1" sql="$2" host response
    host="$(server_host "$k")"
    exec 3<>"/dev/tcp/$host/$(http_port "$k")" || return 1
    printf 'POST / HTTP/1.0\r\nHost: %s\r\nContent-Length: %s\r\n\r\n%s' "$host" "${#sql}" "$sql" >&3
    response="$(timeout -s KILL 30 cat <&3)" || { exec 3<&-; return 1; }
    exec 3<&-
    case "$response" in
        "HTTP/1."?" 200"*) printf '%s' "${response#*$'\r\n\r\n'}" ;;
        *) printf '%s\n' "${response#*$'\r\n\r\n'}" >&2; return 1 ;;
    esac
}

# A replica whose data folder is gone (wipe-replica: a lost disk) gets its tables' definitions
# back from a running twin, over SQL as from another machine, and ClickHouse's force_restore_data
# flag: on start it finds its parts missing and fetches every one from its twins.
restore_definitions() {
    local k="$1" dir twin="" r candidate database table
    dir="$(server_dir "$k")"
    [ -f "$dir/wiped" ] || return 0
    for r in $(seq 1 "$replicas"); do
        candidate="$(server_index "$(server_shard "$k")" "$r")"
        if [ "$candidate" != "$k" ] && server_answers "$candidate" 2>/dev/null; then
            twin="$candidate"
            break
        fi
    done
    [ -n "$twin" ] || { echo "cluster.sh: no running twin of $(server_name "$k") to restore it from" >&2; return 1; }
    mkdir -p "$dir/data/metadata" "$dir/data/flags"
    for database in $(server_sql "$twin" "SELECT name FROM system.databases WHERE name NOT IN ('system', 'default')"); do
        mkdir -p "$dir/data/metadata/$database"
        printf 'ATTACH DATABASE %s\nENGINE = Ordinary\n' "$database" >"$dir/data/metadata/$database.sql"
        # Tables before views: a view's target must exist when it is attached.
        for table in $(server_sql "$twin" "SELECT name FROM system.tables WHERE database = '$database' ORDER BY engine = 'MaterializedView', name"); do
            server_sql "$twin" "SHOW CREATE TABLE $database.$table" |
                python3 "$root/scripts/attach-definition.py" "$database" "$table" \
                    >"$dir/data/metadata/$database/$table.sql"
        done
    done
    touch "$dir/data/flags/force_restore_data"
    rm -f "$dir/wiped"
    echo "$(server_name "$k"): definitions restored from $(server_name "$twin"); it fetches its parts from its twins"
}

zookeeper_answers() {
    local answer
    exec 4<>"/dev/tcp/$(zookeeper_host)/$(zookeeper_port)" || return 1
    printf ruok >&4
    answer="$(timeout -s KILL 5 cat <&4)" || { exec 4<&-; return 1; }
    exec 4<&-
    [ "$answer" = imok ]
}

# ZooKeeper from Debian's zookeeperd, in the foreground (not zkServer.sh, whose pid and log
# handling are the package's), its data in DIR/zookeeper.
start_zookeeper() {
    local dir="$state/zookeeper"
    [ "$replicas" -gt 1 ] || return 0
    mkdir -p "$dir/data"
    sed -e "s|@ROOT@|$dir|" -e "s/@HOST@/$(zookeeper_host)/" -e "s/@PORT@/$(zookeeper_port)/" \
        "$root/deploy/zookeeper/zoo.cfg" >"$dir/zoo.cfg"
    if running "$dir/pid" "$dir/zoo.cfg"; then
        echo "zookeeper already runs"
        return 0
    fi
    if zookeeper_answers 2>/dev/null; then
        echo "cluster.sh: $(zookeeper_host):$(zookeeper_port) already answers (another ZooKeeper)" >&2
        return 1
    fi
    (close_inherited && exec java -Xmx256m -Dzookeeper.admin.enableServer=false -Dzookeeper.log.dir="$dir" \
        -cp /etc/zookeeper/conf:/usr/share/java/zookeeper.jar org.apache.zookeeper.server.ZooKeeperServerMain \
        "$dir/zoo.cfg" >>"$dir/output.log" 2>&1) &
    echo $! >"$dir/pid"
    wait_until "ZooKeeper (port $(zookeeper_port))" 60 zookeeper_answers && kill -0 "$(cat "$dir/pid")" || {
        tail -n 20 "$dir/output.log" >&2
        return 1
    }
    echo "zookeeper: $(zookeeper_host):$(zookeeper_port)"
}

stop_zookeeper() {
    stop_process "$state/zookeeper/pid" "$state/zookeeper/zoo.cfg" zookeeper "${1:-TERM}"
}

clickhouse_url() {
    local list="" k
    for k in $(seq 1 "$(servers)"); do list+="${list:+,}$(server_host "$k"):$(http_port "$k")"; done
    if [ "$replicas" = 1 ]; then
        echo "clickhouse://127.0.0.1:$(http_port 1)/footprint?cluster=footprint&shards=$list"
    else
        echo "clickhouse://$(server_host 1):$(http_port 1)/footprint?cluster=footprint&replicas=$replicas&shards=$list"
    fi
}

# A new admin token of the shape the server makes its own (AccessConfiguration.makeToken):
# fpa_ and 32 hexadecimal digits.
new_admin_token() {
    printf 'fpa_%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
}

postgres_host() { echo 127.0.1.2; }
postgres_port() { echo $((base + 91)); }
postgres_url() { echo "postgres://footprint@$(postgres_host):$(postgres_port)/footprint"; }
postgres_bin="${FOOTPRINT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"

# Runs a PostgreSQL tool as the postgres user when this script runs as root (PostgreSQL refuses
# to run as root), else as the current user.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

postgres_running() {
    local pid
    pid="$(head -n 1 "$state/postgres/data/postmaster.pid" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$state/postgres/data"
}

# PostgreSQL 15 from Debian for the collectors' metadata (`--meta`): a cluster of its own in
# DIR/postgres (initdb once, trust authentication for its superuser `footprint` on its loopback
# address only), and the database `footprint`.
start_postgres() {
    local dir="$state/postgres"
    [ "$postgres" = 1 ] || return 0
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        as_postgres "$postgres_bin/initdb" -D "$dir/data" -U footprint --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 || {
            cat "$dir/initdb.log" >&2
            return 1
        }
    fi
    if postgres_running; then
        echo "postgresql already runs"
        return 0
    fi
    (close_inherited && as_postgres "$postgres_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
        -o "-p $(postgres_port) -k $dir -c listen_addresses=$(postgres_host)" start >/dev/null) || {
        tail -n 20 "$dir/log" >&2
        return 1
    }
    if ! "$postgres_bin/psql" -h "$(postgres_host)" -p "$(postgres_port)" -U footprint -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = 'footprint'" | grep -q 1; then
        "$postgres_bin/psql" -h "$(postgres_host)" -p "$(postgres_port)" -U footprint -d postgres -qc \
            "CREATE DATABASE footprint" >/dev/null
    fi
    echo "postgresql: $(postgres_url)"
}

# Stops PostgreSQL: `fast` (clients disconnected, a clean shutdown), or with KILL `immediate`.
stop_postgres() {
    local mode=fast pid
    [ "${1:-TERM}" = KILL ] && mode=immediate
    postgres_running || return 0
    pid="$(head -n 1 "$state/postgres/data/postmaster.pid")"
    as_postgres "$postgres_bin/pg_ctl" -D "$state/postgres/data" -m "$mode" -w -t 60 stop >/dev/null 2>&1 || true
    echo "stopped postgresql (pid $pid)"
}

# What a collector's command line holds and no other process's: its port.
collector_mark() { echo "--port $(collector_port "$1") "; }

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
    local metadata=(--db "$state/metadata.sqlite")
    [ "$postgres" = 1 ] && metadata=(--meta "$(postgres_url)")
    (close_inherited && exec "$footprint" serve --store "$(clickhouse_url)" "${metadata[@]}" \
        --port "$port" --trusted-proxy 127.0.0.1 --admin-token "$admin_token" \
        --collector-tag "$((i - 1))" >"$dir/output.log" 2>&1) &
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
        [ "$postgres" = 1 ] && echo "FOOTPRINT_POSTGRES_URL='$(postgres_url)'"
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
        [ -d "$dir" ] && stop_process "$dir/pid" "$(collector_mark "${dir##*collector}")" "$(basename "$dir")" "$signal"
    done
    for dir in "$state"/shard*; do
        [ -d "$dir" ] && stop_process "$dir/pid" "$dir/config.xml" "$(basename "$dir")" "$signal"
    done
    stop_zookeeper "$signal"
    stop_postgres "$signal"
    rm -f "$env_file"
    return 0
}

case "$command" in
    start)
        [ "$haproxy" = 1 ] && [ "$collectors" = 0 ] && collectors=2
        for dir in "$state"/shard* "$state"/collector*; do
            [ -d "$dir" ] || continue
            case "$dir" in
                */collector*) mark="$(collector_mark "${dir##*collector}")" ;;
                *) mark="$dir/config.xml" ;;
            esac
            if running "$dir/pid" "$mark"; then
                echo "cluster.sh: a cluster already runs from $state (scripts/cluster.sh stop --state $state)" >&2
                exit 1
            fi
        done
        printf 'base=%s\nshards=%s\nreplicas=%s\ncollectors=%s\nhaproxy=%s\npostgres=%s\n' "$base" "$shards" \
            "$replicas" "$collectors" "$haproxy" "$postgres" >"$state/cluster.settings"
        admin_token="${FOOTPRINT_ADMIN_TOKEN:-$(new_admin_token)}"
        trap 'echo "cluster.sh: start failed, stopping what started" >&2; stop_all' ERR
        start_postgres
        start_zookeeper
        for k in $(seq 1 "$(servers)"); do start_server "$k"; done
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
        [ "$shard_number" -le "$shards" ] || { echo "cluster.sh: no shard $shard_number in $state" >&2; exit 1; }
        for r in $(seq 1 "$replicas"); do stop_server "$(server_index "$shard_number" "$r")" KILL; done
        ;;
    start-shard)
        [ "$shard_number" -le "$shards" ] || { echo "cluster.sh: no shard $shard_number in $state" >&2; exit 1; }
        for r in $(seq 1 "$replicas"); do start_server "$(server_index "$shard_number" "$r")"; done
        ;;
    stop-replica | start-replica | wipe-replica)
        [ "$replicas" -gt 1 ] && [ "$shard_number" -le "$shards" ] && [ "$replica_number" -le "$replicas" ] || {
            echo "cluster.sh: no replica $replica_number of shard $shard_number in $state" >&2
            exit 1
        }
        k="$(server_index "$shard_number" "$replica_number")"
        case "$command" in
            stop-replica) stop_server "$k" KILL ;;
            start-replica) start_server "$k" ;;
            wipe-replica)
                if running "$(server_dir "$k")/pid" "$(server_dir "$k")/config.xml"; then
                    echo "cluster.sh: $(server_name "$k") runs; stop-replica it first" >&2
                    exit 1
                fi
                rm -rf "$(server_dir "$k")/data" "$(server_dir "$k")/tmp"
                touch "$(server_dir "$k")/wiped"
                echo "$(server_name "$k"): data folder deleted"
                ;;
        esac
        ;;
    stop-zookeeper)
        stop_zookeeper KILL
        ;;
    start-zookeeper)
        [ "$replicas" -gt 1 ] || { echo "cluster.sh: the cluster in $state has no replicas, no ZooKeeper" >&2; exit 1; }
        start_zookeeper
        ;;
    status)
        status=0
        if [ "$postgres" = 1 ]; then
            if postgres_running; then
                echo "postgresql: up, $(postgres_url)"
            else
                echo "postgresql: down"
                status=1
            fi
        fi
        if [ "$replicas" -gt 1 ]; then
            if running "$state/zookeeper/pid" "$state/zookeeper/zoo.cfg" && zookeeper_answers; then
                echo "zookeeper: up, $(zookeeper_host):$(zookeeper_port)"
            else
                echo "zookeeper: down"
                status=1
            fi
        fi
        for k in $(seq 1 "$(servers)"); do
            [ -d "$(server_dir "$k")" ] || continue
            if running "$(server_dir "$k")/pid" "$(server_dir "$k")/config.xml" && server_answers "$k"; then
                echo "$(server_name "$k"): up, http://$(server_host "$k"):$(http_port "$k")"
            else
                echo "$(server_name "$k"): down"
                status=1
            fi
        done
        for dir in "$state"/collector*; do
            [ -d "$dir" ] || continue
            i="${dir##*collector}"
            if running "$dir/pid" "$(collector_mark "$i")" && collector_answers "$i" >/dev/null; then
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
