# step.sh - quiet but visible steps, for scripts that source this file.
#
#   step "installing Debian packages: a b" command args...
#
# prints one line, "<STEP_WHO>: installing Debian packages: a b ... (23 s)",
# and keeps the command's own output in $STEP_LOGS/<STEP_LOG>.log (default:
# the step's first word).  When the command fails the line ends in FAILED and
# the log's last lines follow (its first lines with STEP_SHOW=head, for a
# compiler's first errors), with the log's path.  Returns the command's status.
#
# STEP_NOTE, if set, is a command whose output goes in the parentheses
# before the time ("12 files compiled, 14 s").
#
# The caller sets STEP_WHO (the script's name) and may set STEP_LOGS (default
# /var/tmp/cdc_kafka-logs-<user>, kept: the next run overwrites each log).

STEP_LOGS=${STEP_LOGS:-/var/tmp/cdc_kafka-logs-$(id -un)}

step_elapsed() {
	local s=$1
	if [ "$s" -ge 60 ]; then
		printf '%d min %d s' $((s / 60)) $((s % 60))
	else
		printf '%d s' "$s"
	fi
}

step() {
	local what=$1 log rc=0 t0=$SECONDS
	shift
	mkdir -p "$STEP_LOGS"
	log="$STEP_LOGS/${STEP_LOG:-${what%% *}}.log"
	printf '%s: %s ...' "$STEP_WHO" "$what"
	"$@" </dev/null >"$log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		printf ' (%s%s)\n' "${STEP_NOTE:+$($STEP_NOTE), }" "$(step_elapsed $((SECONDS - t0)))"
		return 0
	fi
	printf ' FAILED (%s)\n' "$(step_elapsed $((SECONDS - t0)))"
	if [ "${STEP_SHOW:-tail}" = head ]; then
		head -n 40 "$log"
	else
		tail -n 25 "$log"
	fi | sed 's/^/    /' >&2
	echo "    (all of it: $log)" >&2
	return $rc
}
