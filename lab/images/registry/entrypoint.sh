#!/bin/sh
# Write the htpasswd file from the mounted secret (read on stdin, never on a command
# line), then run the registry in the foreground.
set -eu
user=${REGISTRY_USERNAME:?REGISTRY_USERNAME is not set}
secret=${REGISTRY_PASSWORD_FILE:-/run/secrets/registry_password}
htpasswd -B -i -c /etc/docker/registry/htpasswd "$user" <"$secret" 2>/dev/null
chmod 0600 /etc/docker/registry/htpasswd
exec docker-registry serve /etc/docker/registry/config.yml
