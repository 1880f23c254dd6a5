#!/bin/sh
# rootfs.sh BINARY OUT: lays out the runtime image's whole file system in
# OUT for a FROM scratch stage: the binary (stripped), every shared
# library it loads (found by ldd, with the loader, each at its own path),
# busybox as /bin/sh and wget, the entrypoint, /logs to mount the logdir
# on and a /tmp anyone may write to. Nothing else: no compiler, no package
# manager.
set -eu
bin=$1
out=$2
install -D -s -m 0755 "$bin" "$out/usr/bin/profview"
for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
done
install -D -m 0755 /bin/busybox "$out/bin/busybox"
ln -s busybox "$out/bin/sh"
ln -s busybox "$out/bin/wget"
install -m 0755 docker/entrypoint.sh "$out/entrypoint.sh"
# mount points: the logdir, and /proc and /dev, which a runtime mounts
install -d -m 0755 "$out/logs" "$out/proc" "$out/dev"
install -d -m 1777 "$out/tmp"
