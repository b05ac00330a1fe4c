#!/usr/bin/env bash
#
# proxy.sh - put HTTP Basic authentication (and optionally TLS) in front of
# a schema registry, the way registries are commonly exposed: nginx as a
# reverse proxy.  For the tests of cdc_kafka's registry credentials
# (schema.registry.basic.auth.user.info) and CA file; the registry behind
# it is the real one of registry.sh.
#
#   proxy.sh start --dir DIR --port P --upstream URL --user U --password PW [--tls]
#                      start nginx on 127.0.0.1:P; prints the URL to use (the
#                      upstream's path kept, https with --tls)
#   proxy.sh stop --dir DIR
#
# With --tls a self-signed certificate for 127.0.0.1 is made in DIR/cert.pem:
# it is also the CA file a client needs.  nginx runs as the calling user;
# its configuration, logs and pid file are under DIR.  Needs nginx and
# openssl (scripts/install-deps.sh installs them).
set -euo pipefail

log() { echo "proxy.sh: $*" >&2; }
die() { echo "proxy.sh: error: $*" >&2; exit 1; }

DIR= PORT= UPSTREAM= USER_NAME= PASSWORD= TLS=
parse_opts() {
	while [ $# -gt 0 ]; do
		case $1 in
			--dir) DIR=$2; shift 2 ;;
			--port) PORT=$2; shift 2 ;;
			--upstream) UPSTREAM=$2; shift 2 ;;
			--user) USER_NAME=$2; shift 2 ;;
			--password) PASSWORD=$2; shift 2 ;;
			--tls) TLS=1; shift ;;
			*) die "unknown option '$1'" ;;
		esac
	done
	[ -n "$DIR" ] || die "--dir is required"
}

make_certificate() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
		-addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
		-keyout "$DIR/key.pem" -out "$DIR/cert.pem" 2>"$DIR/openssl.log" ||
		die "openssl could not make a certificate (see $DIR/openssl.log)"
	chmod 600 "$DIR/key.pem"
}

write_config() {
	local hostport=${UPSTREAM#*://}
	hostport=${hostport%%/*}
	local listen="listen 127.0.0.1:$PORT;" tls_lines=
	if [ -n "$TLS" ]; then
		listen="listen 127.0.0.1:$PORT ssl;"
		tls_lines="ssl_certificate $DIR/cert.pem; ssl_certificate_key $DIR/key.pem;"
	fi
	cat >"$DIR/nginx.conf" <<EOF
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/error.log;
events { worker_connections 64; }
http {
	access_log $DIR/access.log;
	client_body_temp_path $DIR/tmp/body;
	proxy_temp_path $DIR/tmp/proxy;
	fastcgi_temp_path $DIR/tmp/fastcgi;
	uwsgi_temp_path $DIR/tmp/uwsgi;
	scgi_temp_path $DIR/tmp/scgi;
	server {
		$listen
		$tls_lines
		location / {
			auth_basic "schema registry";
			auth_basic_user_file $DIR/htpasswd;
			proxy_pass http://$hostport;
		}
	}
}
EOF
}

cmd_start() {
	[ -n "$PORT" ] && [ -n "$UPSTREAM" ] && [ -n "$USER_NAME" ] && [ -n "$PASSWORD" ] ||
		die "start needs --port, --upstream, --user and --password"
	command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || die "nginx is not installed"
	mkdir -p "$DIR/tmp"
	printf '%s:%s\n' "$USER_NAME" "$(openssl passwd -apr1 "$PASSWORD")" >"$DIR/htpasswd"
	[ -z "$TLS" ] || make_certificate
	write_config
	PATH=$PATH:/usr/sbin nginx -p "$DIR" -c "$DIR/nginx.conf" -e "$DIR/error.log" ||
		die "nginx did not start (see $DIR/error.log)"
	for _ in $(seq 1 50); do
		if (: </dev/tcp/127.0.0.1/"$PORT") 2>/dev/null; then
			local scheme=http path=/${UPSTREAM#*://*/}
			[ "$path" != "/$UPSTREAM" ] || path=
			[ -z "$TLS" ] || scheme=https
			echo "$scheme://127.0.0.1:$PORT$path"
			return 0
		fi
		sleep 0.1
	done
	die "nginx does not listen on port $PORT (see $DIR/error.log)"
}

cmd_stop() {
	[ -f "$DIR/nginx.pid" ] || return 0
	kill "$(cat "$DIR/nginx.pid")" 2>/dev/null || true
	for _ in $(seq 1 50); do
		[ -f "$DIR/nginx.pid" ] || return 0
		sleep 0.1
	done
}

cmd=${1:-}
shift || true
parse_opts "$@"
case $cmd in
	start) cmd_start ;;
	stop) cmd_stop ;;
	*) die "usage: proxy.sh start|stop --dir DIR ..." ;;
esac
