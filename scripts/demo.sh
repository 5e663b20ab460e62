#!/usr/bin/env bash
# The main job, end to end, on a real bug: examples/python, a revenue report
# that comes out 80.14 USD short. Watch it to learn the tool: every command is
# printed before it runs, and every step says why it is taken.
#
# The loop is the shortest honest one an agent can run: six debug-mode
# commands and no other shell command. What the agent does with its editor
# (paste the import and the probes, write the fix) this script does itself,
# and prints what it changed. Building debug-mode and copying the example
# into a git work tree of its own are the set-up, not part of the loop.
#
# Needs go, python3 and git, nothing else. Works on a copy of the example in
# a temporary folder with a private debug-mode home, so it leaves nothing
# behind.
set -euo pipefail
cd "$(dirname "$0")/.."

for need in go python3 git; do
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
# The private home goes with the demo; its background work is ended first
# (an agent's own session would simply idle out).
trap 'debug-mode stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

step "Set-up: build debug-mode, copy the example into a project of its own"
say "(The first build on a fresh machine downloads Go modules: allow a minute or two.)"
go build -o "$work/bin/debug-mode" ./cmd/debug-mode
cp -R examples/python "$work/project"
cd "$work/project"
git init -q && git add . && git -c user.name=demo -c user.email=demo@example.com commit -qm "the report, as the user has it"
say "Built (go build -o … ./cmd/debug-mode) and copied into a temporary git work tree, as a project"
say "would be; every command below runs there."

step "1. The bug report, and what reading alone can settle"
say "User: \"The November 2026 revenue report says 1,200.20 USD. Finance's ledger says 1,280.34.\""
say "Reading report.py gives three falsifiable hypotheses for the 80.14 USD gap:"
say "  H1  a EUR or GBP amount is converted with the wrong rate or in the wrong direction"
say "  H2  a refund is subtracted twice, or from the wrong order"
say "  H3  a November order is counted in another month (its order time is parsed wrong)"
say "Which order is wrong is a runtime value, so the cheapest evidence that settles all three"
say "is one probe per hypothesis and one reproduction, which also shows the bug happen."

step "2. Create a session, with the probe template for Python filled in for it"
show debug-mode create --language python --ingest file | tee "$work/create.txt"
id=$(sed -n 's/^Session ID *//p' "$work/create.txt")

# section NAME: the lines of the block headed NAME in create's output, up to
# the blank line that ends it (what the agent copies from what it read).
section() {
  local line in=0 out=''
  while IFS= read -r line; do
    if ((in)); then
      [[ -z $line ]] && break
      out+=$line$'\n'
    elif [[ $line == "$1"* ]]; then
      in=1
    fi
  done <"$work/create.txt"
  printf '%s' "${out%$'\n'}"
}
imp=$(section 'IMPORT (')
call=$(section 'CALL TEMPLATE')

# edit FILE OLD NEW: the agent's editor. Replaces the one occurrence of OLD
# (several lines allowed) and prints the lines it removed (-) and added (+),
# each cut at 100 characters.
edit() {
  local file=$1 old=$2 new=$3 text a b i=0 j k l
  text=$(<"$file")
  [[ $text == *"$old"* ]] || { echo "demo: cannot find the text to replace in $file" >&2; exit 1; }
  printf '%s\n' "${text/"$old"/"$new"}" >"$file"
  mapfile -t a <<<"$old"
  mapfile -t b <<<"$new"
  j=${#a[@]} k=${#b[@]}
  while ((i < j && i < k)) && [[ ${a[i]} == "${b[i]}" ]]; do ((i++)) || true; done
  while ((j > i && k > i)) && [[ ${a[j-1]} == "${b[k-1]}" ]]; do ((j--, k--)) || true; done
  for ((l = i; l < j; l++)); do printf -- '- %s\n' "${a[l]:0:100}"; done
  for ((l = i; l < k; l++)); do printf -- '+ %s\n' "${b[l]:0:100}"; done
}

step "3. Paste the import once and one probe per hypothesis (the editor, no command)"
say "No helper file goes into the project: debug-mode keeps the helper in its own folder, and each"
say "file with probes imports it with one region, pasted as printed under IMPORT:"
edit report.py $'from decimal import ROUND_HALF_UP, Decimal\n' $'from decimal import ROUND_HALF_UP, Decimal\n'"$imp"$'\n'
say "Each probe is the CALL TEMPLATE with its placeholders filled in, in its own region. The helper"
say "records the call's own file and line, so no location is written by hand:"
# probe BEFORE HYP MESSAGE DATA: the call template above the first line that
# reads BEFORE, indented like it.
probe() {
  local before=$1 hyp=$2 msg=$3 data=$4 indent block text
  indent=${before%%[! ]*}
  block=$call
  block=${block//__HYPOTHESIS_ID__/"$hyp"}
  block=${block//__MESSAGE__/"$msg"}
  block=${block//__DATA_EXPRESSION__/"$data"}
  text=
  while IFS= read -r line; do text+=$indent$line$'\n'; done <<<"$block"
  edit report.py "$before" "$text$before"
}
probe '    return usd' H1 'amount converted to USD' \
  '{"amount": str(amount), "currency": currency, "usd": str(usd)}'
probe '    return to_usd(net, order["currency"])' H2 'refund subtracted' \
  '{"id": order["id"], "amount": str(order["amount"]), "refund": str(order["refund"]), "net": str(net)}'
probe '        if month_of(order) == month:' H3 'order assigned to a month' \
  '{"id": order["id"], "created": order["created"].isoformat(), "month": month_of(order)}'

step "4. Reproduce, and freeze this failing evidence for the comparison after the fix"
say "reproduce runs the program in a new cycle, waits until every event is in, and reports the"
say "counts, the exit status, the output and any region that never fired; --capture keeps the cycle."
show debug-mode reproduce --session "$id" --capture before-fix -- python3 report.py | tee "$work/before.txt"
capture=$(sed -n 's/^Capture *\(c-[0-9a-f]\{12\}\) .*/\1/p' "$work/before.txt")
say "The bug is reproduced (1,200.20 USD). H3 saw 18 orders, H1 and H2 only 17: one order is dropped."

step "5. Read the evidence: one query, every hypothesis"
say "Every event that is not the plain case: a conversion from EUR or GBP, a refund, a month that is not November."
show debug-mode query --session "$id" 'select(.hypothesisId == "H1" and .data.currency != "USD" or .hypothesisId == "H2" and .data.refund != "0" or .hypothesisId == "H3" and .data.month != "2026-11") | [.sequence, .hypothesisId, .data]' | tee "$work/q.txt"
# seqs HYP: the SEQ numbers the query printed for HYP, comma-separated.
seqs() { sed -n "s/^\[\([0-9]*\),\"$1\".*/\1/p" "$work/q.txt" | paste -sd, - | sed 's/,/, /g'; }
decisive=$(seqs H3)
say "H1 rejected (SEQ $(seqs H1)): 1.08 USD per EUR and 1.27 per GBP, as the rate sheet says."
say "H2 rejected (SEQ $(seqs H2)): each refund subtracted once, from its own order."
say "H3 confirmed (SEQ $decisive): order A-1012 falls in January 1970. 1970-01-21T18:48:09.84 is 1,795,689,840"
say "read as milliseconds; as epoch seconds it is 2026-11-26. parse_created divides every number by 1000."

step "6. Fix only what the evidence proves (the probes stay in for the verifying run)"
edit report.py \
  $'    if value.isdigit():\n        return datetime.fromtimestamp(int(value) / 1000, tz=timezone.utc)' \
  $'    if value.isdigit():\n        stamp = int(value)\n        if stamp < 10**11:  # older app versions send epoch seconds\n            stamp *= 1000\n        return datetime.fromtimestamp(stamp / 1000, tz=timezone.utc)'

step "7. Verify: reproduce again, and diff against the capture"
show debug-mode reproduce --session "$id" --diff "$capture" -- python3 report.py
say "The report says 1,280.34 USD, the ledger's figure. diff aligns each group's events by their data,"
say "as a line diff aligns lines, so it shows only what changed (the fix moved every probe 3 lines down):"
say "H3: 18 events on both sides and one changed value: SEQ $decisive, order A-1012, 1970-01 before, 2026-11 now."
say "H1 and H2: one event more each (17 to 18), every other event the same: order A-1012, now counted."
say "H1's new event, SEQ 36, is 74.20 EUR = 80.14 USD: exactly the missing amount. Nothing else changed."

step "8. Remove every probe, and prove it"
say "One command: the regions go (the helper's import with them), what still differs from git HEAD"
say "outside them is listed (it must be the fix alone), and it ends with the check probes --check gives."
show debug-mode probes --remove --yes
say "What differs from HEAD is one hunk at line 22, in parse_created: the fix, 5 lines. No probe, no import."

step "9. Clean up: delete the session and its evidence"
show debug-mode clean --session "$id"
say "Done: six debug-mode commands, no other shell command. The same loop works in any language:"
say "debug-mode template --help lists them."
