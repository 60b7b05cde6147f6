#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL server:
#
#   scripts/pg-test.sh .venv/bin/pytest -m "not browser"
#
# The server (Debian's postgresql package) gets a private data directory under /tmp (mktemp) and a
# random free port on 127.0.0.1; the command sees DATABASE_URL=postgres://... for a role that may
# create databases (pytest-django makes its own test database). The server is stopped and the
# directory removed when the command ends, fails or is interrupted. As root the server runs as the
# `postgres` user (PostgreSQL refuses root); otherwise as the calling user.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi

bindir="${PG_BINDIR:-}"
if [ -z "$bindir" ]; then
  bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "PostgreSQL server binaries not found (install the Debian package postgresql, or set PG_BINDIR)." >&2
  exit 1
fi

as_server() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pgdir="$(mktemp -d /tmp/regnal-pg.XXXXXXXX)"
child=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [ -f "$pgdir/data/postmaster.pid" ]; then
    as_server "$bindir/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$pgdir"
  exit "$status"
}
on_signal() {
  # The command runs in the background (so a signal is handled at once): stop it, then clean up.
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  exit $((128 + $1))
}
trap cleanup EXIT
trap 'on_signal 2' INT
trap 'on_signal 15' TERM
trap 'on_signal 1' HUP

chmod 700 "$pgdir"
if [ "$(id -u)" = 0 ]; then chown postgres: "$pgdir"; fi

# A password for the test role, never printed (the URL is only in the command's environment).
password="$(head -c 18 /dev/urandom | base64 | tr -d '/+=')"
printf '%s\n' "$password" >"$pgdir/superuser.pw"
if [ "$(id -u)" = 0 ]; then chown postgres: "$pgdir/superuser.pw"; fi

as_server "$bindir/initdb" -D "$pgdir/data" -U postgres --pwfile="$pgdir/superuser.pw" \
  --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >"$pgdir/initdb.log" 2>&1 \
  || { cat "$pgdir/initdb.log" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Durability is pointless for a throwaway cluster: fsync off makes the suite faster.
for attempt in 1 2 3; do
  port="$(free_port)"
  if as_server "$bindir/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 30 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $pgdir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      start >/dev/null; then
    started=1
    break
  fi
  echo "PostgreSQL did not start on port $port (attempt $attempt):" >&2
  tail -n 5 "$pgdir/server.log" >&2 || true
done
[ -n "${started:-}" ] || exit 1

as_server "$bindir/psql" -h "$pgdir" -p "$port" -U postgres -d postgres -q -v ON_ERROR_STOP=1 \
  -c "CREATE ROLE regnal LOGIN CREATEDB PASSWORD '$password'" \
  -c "CREATE DATABASE regnal OWNER regnal" >/dev/null

export DATABASE_URL="postgres://regnal:$password@127.0.0.1:$port/regnal"
echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $pgdir, removed at the end)"
"$@" <&0 &
child=$!
wait "$child"
