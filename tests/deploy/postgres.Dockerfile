# A stand-in for the postgres:15-bookworm image deploy/compose.yaml names,
# for tests/deploy/container.sh where Docker Hub cannot be reached: Debian's
# postgresql-15 on the same debian:bookworm base, and an entry point that
# does what the official image's does with the same variables
# (POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, PGDATA): on an empty data
# directory initdb with that superuser and password (scram-sha-256 over
# TCP from anywhere), create the database, then run postgres listening on
# every address of the container. pg_isready (the compose health check) is
# on the PATH. Built from tests/deploy/:
#
#   podman build -f postgres.Dockerfile -t docker.io/library/postgres:15-bookworm .
FROM debian:bookworm
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 postgresql-client-15 \
    && rm -rf /var/lib/apt/lists/*
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/bin/sh", "/usr/local/bin/postgres-entrypoint.sh"]
