#!/usr/bin/env bash
# Asks two builds of footprint every report over the same generated file and says which answers
# differ by a byte: 156 report URLs (13 reports and their variants, 3 date ranges, 4 page filters).
# For a change that must not alter any answer (a store redesign): build the commit before it
# (`git worktree add /tmp/before REV && swift build --product footprint` there) and compare.
#
#   scripts/compare-reports.sh OLD_FOOTPRINT NEW_FOOTPRINT   (exit 1 when any answer differs)
set -euo pipefail
old="$1"; new="$2"; dir="$(mktemp -d)"
"$old" generate --events 60000 --people 3000 --days 30 --seed 7 --db "$dir/base.sqlite" >/dev/null
cp "$dir/base.sqlite" "$dir/old.sqlite"; cp "$dir/base.sqlite" "$dir/new.sqlite"
token=fpa_0123456789abcdef0123456789abcdef
"$old" serve --port 18931 --db "$dir/old.sqlite" --admin-token $token >"$dir/old.log" 2>&1 & o=$!
"$new" serve --port 18932 --db "$dir/new.sqlite" --admin-token $token >"$dir/new.log" 2>&1 & n=$!
trap 'kill $o $n 2>/dev/null; rm -rf "$dir"' EXIT
for p in 18931 18932; do for i in $(seq 1 120); do curl -s -o /dev/null "http://127.0.0.1:$p/health" && break; sleep 0.5; done; done
for p in 18931 18932; do for i in $(seq 1 600); do curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$p/v1/reports/items" | grep -q '"error":"starting"' || break; sleep 0.5; done; done
today=$(date -u +%F); from=$(date -u -d '-29 days' +%F); mid=$(date -u -d '-10 days' +%F)
queries=()
for range in "" "from=$from&to=$today" "from=$mid&to=$today"; do
  for page in "" "page=Home" "page=ProductList" "page=Cart"; do
    q="$range"; [ -n "$page" ] && q="${q:+$q&}$page"
    for r in traffic events "elements?grouping=exact" "elements?grouping=similar" items sessions paths \
             "paths?from_page=Home" "paths?from_page=ProductDetail" \
             "funnel?step1=page:Home&step2=page:ProductList&step3=event:\$element_click" \
             "funnel?step1=page:ProductDetail&step2=event:\$screen_leave&window_days=1" \
             "retention?days=7" "retention?days=7&return_event=\$element_click"; do
      case "$r" in *\?*) url="$r${q:+&$q}";; *) url="$r${q:+?$q}";; esac
      queries+=("$url")
    done
  done
done
same=0; differ=0
for q in "${queries[@]}"; do
  a=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:18931/v1/reports/$q")
  b=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:18932/v1/reports/$q")
  if [ "$a" == "$b" ]; then same=$((same+1)); else differ=$((differ+1)); echo "DIFFER: $q"; echo " old: ${a:0:300}"; echo " new: ${b:0:300}"; fi
done
echo "reports compared: ${#queries[@]}, byte-identical: $same, different: $differ"
[ "$differ" -eq 0 ]
