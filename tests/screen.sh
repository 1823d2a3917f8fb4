# Sourced by the tests that drive a lab in a terminal (tmux).
# screen_shows SESSION TEXT SECONDS: whether SESSION's screen shows TEXT
# within SECONDS.
screen_shows() {
	local _
	for _ in $(seq $(($3 * 10))); do
		tmux capture-pane -t "$1" -p | grep -qF -- "$2" && return 0
		sleep 0.1
	done
	return 1
}
