# Sourced by the scripts that start `occtune serve --port 0` (tests/e2e, scripts/loadtest-serve.sh):
# the port the kernel gave the server, read from its log line "listening on port N".
# serve_port LOG: prints the port once logged; returns 1 when none is logged within 10 s.
serve_port() {
  local port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on port \([0-9][0-9]*\).*/\1/p' "$1" 2>/dev/null || true)
    if [ -n "$port" ]; then
      echo "$port"
      return 0
    fi
    sleep 0.1
  done
  return 1
}
