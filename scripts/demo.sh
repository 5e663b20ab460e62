#!/usr/bin/env bash
# The main job, end to end, on a real bug: examples/python, a revenue report
# that comes out 80.14 USD short. Watch it to learn the tool: every command is
# printed before it runs, and every step says why it is taken.
#
# Needs go and python3, nothing else. Works on a copy of the example in a
# temporary folder with a private debug-mode home, so it leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

for need in go python3; do
  if ! command -v "$need" >/dev/null 2>&1; then
    echo "demo: $need is not installed; install it (or run ./scripts/setup.sh as root) and run ./scripts/demo.sh again" >&2
    exit 1
  fi
done

if [ -t 1 ]; then bold=$'\033[1m' dim=$'\033[2m' off=$'\033[0m'; else bold='' dim='' off=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$off"; }
say() { printf '%s%s%s\n' "$dim" "$*" "$off"; }
# show prints a command as you would type it, then runs it.
show() {
  local word line='$'
  for word in "$@"; do
    case $word in
    *[!A-Za-z0-9_./:=@%+,-]* | '') line+=" '${word//\'/\'\\\'\'}'" ;;
    *) line+=" $word" ;;
    esac
  done
  printf '%s\n' "$line"
  "$@"
}

work=$(mktemp -d)
export AGENT_DEBUG_MODE_HOME="$work/home"
mkdir -p "$work/bin"
export PATH="$work/bin:$PATH"
trap 'debug-mode stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

step "1. Build debug-mode"
say "(The first build on a fresh machine downloads Go modules: allow a minute or two.)"
show go build -o "$work/bin/debug-mode" ./cmd/debug-mode
cp -R examples/python "$work/project"
cd "$work/project"
say "The example is copied to a temporary folder; every command below runs there."

step "2. The bug report, and what reading alone can settle"
say "User: \"The November 2026 revenue report says 1,200.20 USD. Finance's ledger says 1,280.34.\""
say "First reproduce it yourself, without any probe:"
show python3 report.py
say "Reading report.py gives three falsifiable hypotheses for the 80.14 USD gap:"
say "  H1  a EUR or GBP amount is converted with the wrong rate or in the wrong direction"
say "  H2  a refund is subtracted twice, or from the wrong order"
say "  H3  a November order is counted in another month (its order time is parsed wrong)"
say "Which order is wrong is a runtime value, so the cheapest evidence that settles all three"
say "is one probe per hypothesis and one reproduction."

step "3. Create a session: one debugging investigation"
show debug-mode create | tee "$work/create.txt"
id=$(sed -n 's/^Session ID *//p' "$work/create.txt")

# edit FILE OLD NEW: replace the one occurrence of OLD (several lines allowed).
edit() {
  local file=$1 old=$2 new=$3 text
  text=$(<"$file")
  [[ $text == *"$old"* ]] || { echo "demo: cannot find the text to replace in $file" >&2; exit 1; }
  printf '%s\n' "${text/"$old"/"$new"}" >"$file"
}

step "4. Paste the helper's import into report.py, with this session's Append Path filled in"
say "No helper file goes into the project: debug-mode keeps the helper in its own folder, and each"
say "file with probes imports it with one line, in its own agent log region:"
show debug-mode template --language python --ingest file --section import --session "$id"
imp=$(debug-mode template --language python --ingest file --section import --session "$id")
edit report.py $'from decimal import ROUND_HALF_UP, Decimal\n' $'from decimal import ROUND_HALF_UP, Decimal\n'"$imp"$'\n'

step "5. Paste one probe per hypothesis from the call template"
show debug-mode template --language python --ingest file --section call
call=$(debug-mode template --language python --ingest file --section call)

# probe BEFORE HYP MESSAGE DATA: paste the call template into report.py above
# the first line that reads BEFORE, indented like it, placeholders filled in.
# The helper records the call's own file and line, so the evidence points at it.
probe() {
  local before=$1 hyp=$2 msg=$3 data=$4 indent block text
  indent=${before%%[! ]*}
  block=$call
  block=${block//__HYPOTHESIS_ID__/"$hyp"}
  block=${block//__MESSAGE__/"$msg"}
  block=${block//__DATA_EXPRESSION__/"$data"}
  text=$(printf '%s\n' "$block" | sed "s/^/$indent/")
  edit report.py "$before" "$text"$'\n'"$before"
}
probe '    return usd' H1 'amount converted to USD' \
  '{"amount": str(amount), "currency": currency, "usd": str(usd)}'
probe '    return to_usd(net, order["currency"])' H2 'refund subtracted' \
  '{"id": order["id"], "amount": str(order["amount"]), "refund": str(order["refund"]), "net": str(net)}'
probe '        if month_of(order) == month:' H3 'order assigned to a month' \
  '{"id": order["id"], "created": order["created"].isoformat(), "month": month_of(order)}'
say "Each probe sits in its own agent log region; the probe ledger lists them:"
show debug-mode probes

step "6. Reproduce"
show python3 report.py
say "Which probes fired, and how often?"
show debug-mode probes --session "$id"

step "7. Read the evidence"
say "status: how many events arrived per hypothesis label, and whether any record was refused."
show debug-mode status --session "$id"
say "logs: the events as a table (SEQ is the handle to cite). The first few:"
show debug-mode logs --session "$id" --limit 6
say "H1: every non-USD conversion, side by side:"
show debug-mode query --session "$id" --hypothesis H1 'select(.data.currency != "USD") | {seq: .sequence, amount: .data.amount, currency: .data.currency, usd: .data.usd}' | tee "$work/h1.txt"
say "H2: refunds are subtracted once each, from their own order:"
show debug-mode query --session "$id" --hypothesis H2 'select(.data.refund != "0") | {seq: .sequence, id: .data.id, amount: .data.amount, refund: .data.refund, net: .data.net}' | tee "$work/h2.txt"
say "H3: the one question that isolates the cause: which order is not in November?"
show debug-mode query --session "$id" --hypothesis H3 'select(.data.month != "2026-11") | {seq: .sequence, id: .data.id, created: .data.created, month: .data.month}' | tee "$work/h3.txt"
# seqs FILE: the SEQ numbers a query printed, comma-separated.
seqs() { sed -n 's/.*"seq":\([0-9]*\).*/\1/p' "$1" | paste -sd, - | sed 's/,/, /g'; }
missing=$(sed -n 's/.*"id":"\([^"]*\)".*/\1/p' "$work/h3.txt" | head -1)
say "H1 rejected (SEQ $(seqs "$work/h1.txt")): 1.08 USD per EUR and 1.27 per GBP, as the rate sheet says."
say "H2 rejected (SEQ $(seqs "$work/h2.txt")): each refund subtracted once, from its own order."
say "H3 confirmed (SEQ $(seqs "$work/h3.txt")): order $missing falls in January 1970. Its row in orders.csv:"
show grep "^$missing," orders.csv
say "Ten digits: epoch seconds, read by parse_created as milliseconds. The fix goes there."

step "8. Freeze the failing evidence before changing the code"
say "The next reset throws this cycle away. A capture keeps it, with the source lines around each"
say "probe as they are now, so the reproduction after the fix can be compared with it."
show debug-mode capture --session "$id" --label before-fix --source-root "$work/project" | tee "$work/capture.txt"
capture=$(grep -o -m1 'c-[0-9a-f]\{12\}' "$work/capture.txt")
decisive=$(seqs "$work/h3.txt")
say "A capture reads like live evidence. follow: the source behind the decisive event, SEQ $decisive, as captured:"
show debug-mode follow --session "$id" --capture "$capture" --seq "$decisive" --rel source

step "9. Fix only what the evidence proves (the probes stay in for the verifying run)"
cp report.py "$work/before-fix.py"
edit report.py \
  $'    if value.isdigit():\n        return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)' \
  $'    if value.isdigit():\n        stamp = int(value)\n        if stamp < 10**11:  # older app versions send epoch seconds\n            stamp *= 1000\n        return datetime.fromtimestamp(stamp / 1000, tz=timezone.utc)'
show diff -u --label report.py --label report.py "$work/before-fix.py" report.py || true

step "10. Reset, reproduce again, and diff against the capture"
show debug-mode reset --session "$id"
show python3 report.py
show debug-mode status --session "$id"
say "diff: the capture against this cycle, group by group (hypothesis, location, message):"
show debug-mode diff --session "$id" --from "$capture"
say "diff aligns each group's events by their data, as a line diff aligns lines, so it shows only what changed."
say "H3: 18 events on both sides and one changed value: SEQ $decisive, order $missing, 1970-01 before, 2026-11 now."
say "H1 and H2: one event more each (17 to 18), every other event the same: order $missing, now counted."
say "H1's new event, SEQ 36, is 74.20 EUR = 80.14 USD: exactly the missing amount. Nothing else changed."
say "One query confirms it directly: every order is in November now."
show debug-mode query --session "$id" --hypothesis H3 --slurp 'group_by(.data.month) | map({month: .[0].data.month, orders: length})'
say "The report says 1,280.34 USD, the ledger's figure: the fix is proven by the same probes that found the cause."

step "11. Remove every probe, and prove it"
show debug-mode probes --remove
show debug-mode probes --remove --yes
say "One command: the regions are gone (the helper's import with them: no helper file is in the"
say "project), and it ends with the same check probes --check gives, which needs no session:"
show debug-mode probes --check
say "What remains in the code is the fix alone:"
show diff -u --label examples/python/report.py --label report.py "$repo/examples/python/report.py" report.py || true

step "12. Clean up: delete the session and its evidence"
show debug-mode clean --session "$id"
show debug-mode stop
say "Done. The same loop works in any language: debug-mode template --help lists them."
