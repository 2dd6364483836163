#!/bin/sh
# Entry point of tests/deploy/postgres.Dockerfile: the official postgres
# image's start-up, reduced to what deploy/compose.yaml uses.
set -eu
BIN=/usr/lib/postgresql/15/bin
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

install -d -o postgres -g postgres -m 0700 "$PGDATA"
install -d -o postgres -g postgres -m 2775 /var/run/postgresql
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    chown postgres "$pwfile"
    as_postgres "$BIN/initdb" -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        as_postgres "$BIN/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=" -w start >/dev/null
        as_postgres "$BIN/createdb" -U "$POSTGRES_USER" "$POSTGRES_DB"
        as_postgres "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    echo "postgres-entrypoint: initialised $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi
exec setpriv --reuid=postgres --regid=postgres --init-groups \
    "$BIN/postgres" -D "$PGDATA" -c listen_addresses='*'
