#!/bin/sh
# Entry point of every service image: `serve` (default), `migrate`, `worker`, or any command.
# Runs from /app: the service finds its migrations in /app/prisma/<app>/.
set -e
cd /app
if [ -z "${PORT:-}" ] && [ -s /app/.port ]; then PORT="$(cat /app/.port)"; export PORT; fi
command="${1:-serve}"
if [ "$#" -gt 0 ]; then shift; fi
case "$command" in
  serve) exec node /app/main.js "$@" ;;
  migrate) exec node /app/migrate.js "${APP:?APP is not set}" ;;
  worker) SERVICE_ROLE=worker; export SERVICE_ROLE; exec node /app/main.js --role worker "$@" ;;
  -*) exec node /app/main.js "$command" "$@" ;;
  *) exec "$command" "$@" ;;
esac
