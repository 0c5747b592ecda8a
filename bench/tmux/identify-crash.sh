#!/usr/bin/env bash
# Shows the tmux 3.3a crash Rigdesk's held client works around (src/main/engine/tmux/control-timing.ts):
# control clients attach one after another while another client makes sessions; a notice written to a
# control client that has not finished identifying itself is a segfault (control_write on a missing
# control state). Private -L server only; prints how many clients it took, or that the server lived.
# Run: bash bench/tmux/identify-crash.sh [clients=300]
set -u
S="rdcrash-$$-$RANDOM"
T=(tmux -L "$S" -f /dev/null)
"${T[@]}" new-session -d -s base 'sleep 600'
pid=$("${T[@]}" display-message -p '#{pid}')
echo "tmux $(tmux -V | cut -d' ' -f2), server $pid on -L $S"
( for i in $(seq 400); do "${T[@]}" new-session -d -s "x$i" 'sleep 0.2' 2>/dev/null || exit; done ) &
maker=$!
verdict="the server lived through ${1:-300} clients"
for i in $(seq "${1:-300}"); do
  "${T[@]}" -C attach-session -t base -f ignore-size,no-output < /dev/null > /dev/null 2>&1 &
  sleep 0.02
  if ! kill -0 "$pid" 2>/dev/null; then verdict="the server died after $i control clients (dmesg shows the segfault)"; break; fi
done
kill "$maker" 2>/dev/null
wait "$maker" 2>/dev/null
# The maker may have started a new server on this socket after a crash: this socket's server, whichever it is.
"${T[@]}" kill-server 2>/dev/null
echo "$verdict"
