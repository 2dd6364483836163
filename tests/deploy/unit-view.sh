#!/usr/bin/env bash
# Runs a systemd unit's ExecStart= under the restrictions its [Service]
# section asks for, without systemd (PID 1 here is not systemd, so
# systemd-run cannot start it). Meant to run as root inside
# `unshare --mount --propagation private` (tests/deploy/run.sh does that):
# every mount below is private to that namespace.
#
#   tests/deploy/unit-view.sh UNIT STAGE
#
# STAGE/root/ holds files laid over the host's tree as the installation
# would put them (etc/attnjudge.conf, usr/local/..., var/lib/attnjudge/);
# they are overlaid on /etc, /usr/local and /var/lib (overlayfs: the host's
# files stay visible, nothing on the host changes), STAGE/work/ is
# overlayfs's scratch space. Then, as systemd would, in this order:
#
#   ReadWritePaths=DIR    DIR (from STAGE) is bound on itself, kept writable
#   PrivateTmp=yes        fresh tmpfs on /tmp and /var/tmp
#   ProtectHome=yes       /home, /root, /run/user: empty, mode 000, read-only
#   ProtectKernelTunables=yes, ProtectControlGroups=yes
#                         /proc/sys, /proc/sysrq-trigger and all of /sys read-only
#   ProtectSystem=strict  every other mount read-only, but /dev, /proc and the
#                         paths above
#   WorkingDirectory /, UMask=, LimitNOFILE= (soft and hard),
#   CapabilityBoundingSet=, NoNewPrivileges=yes (setpriv), then exec
#   ExecStart= verbatim.
#
# A directive of the unit this script does not know how to emulate stops it
# (status 3), so the test cannot pass while silently ignoring a restriction.
# Not emulated (and said so in docs/operations.md): DevicePolicy=,
# IPAddressDeny=/IPAddressAllow= (cgroup BPF programs of systemd), KillMode=,
# Restart= and the other service-manager settings.
set -eu
unit=$1
stage=$2
# read once, now: PrivateTmp= below hides /tmp, where the unit file (a
# checkout under /tmp, or the test's copy) may be
unit_text=$(cat "$unit")

val() { # val KEY -> the last value of KEY= in the unit ("" if absent)
    printf '%s\n' "$unit_text" | sed -n "s/^$1=//p" | tail -1
}

# the settings this script emulates, and those that need no emulation here
known="Type ExecStart Restart RestartSec RestartPreventExitStatus KillMode TimeoutStopSec
LimitNOFILE LimitCORE UMask CapabilityBoundingSet NoNewPrivileges ProtectSystem
ReadWritePaths ProtectHome PrivateTmp ProtectKernelTunables ProtectControlGroups
DevicePolicy IPAddressDeny IPAddressAllow"
for key in $(printf '%s\n' "$unit_text" | sed -n '/^\[Service\]/,/^\[/ s/^\([A-Za-z]*\)=.*/\1/p' | sort -u); do
    if ! echo " $(echo $known) " | grep -qF " $key "; then
        echo "unit-view: $unit: $key= is not emulated by this script" >&2
        exit 3
    fi
done
want() { # want KEY VALUE: the unit's KEY must be VALUE (what is emulated)
    if [ "$(val "$1")" != "$2" ]; then
        echo "unit-view: $unit: $1=$(val "$1"), this script emulates $1=$2 only" >&2
        exit 3
    fi
}
want ProtectSystem strict
want ProtectHome yes
want PrivateTmp yes
want NoNewPrivileges yes
want ProtectKernelTunables yes
want ProtectControlGroups yes

mount --make-rprivate /

# the installation: overlays on the host's directories
for dir in etc usr/local var/lib; do
    mkdir -p "$stage/root/$dir" "$stage/work/$dir"
    mount -t overlay overlay \
        -o "lowerdir=/$dir,upperdir=$stage/root/$dir,workdir=$stage/work/$dir" "/$dir"
done

# ReadWritePaths=
rw=$(val ReadWritePaths)
for p in $rw; do
    mount --bind "$stage/root$p" "$p"
done

# PrivateTmp=yes
for d in /tmp /var/tmp; do
    mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$d"
done

# ProtectHome=yes
for d in /home /root /run/user; do
    if [ -d "$d" ]; then
        mount -t tmpfs -o ro,mode=000,nosuid,nodev,noexec tmpfs "$d"
    fi
done

# ProtectKernelTunables=yes: /proc/sys and /proc/sysrq-trigger become
# read-only mounts of their own (/sys is handled with every mount below)
for p in /proc/sys /proc/sysrq-trigger; do
    [ -e "$p" ] || continue
    mount --bind "$p" "$p"
    mount -o remount,bind,ro "$p"
done

# ProtectSystem=strict (and the /sys part of ProtectKernelTunables=,
# ProtectControlGroups=): every mount read-only but the API file systems and
# the writable paths; a mount's other flags (nosuid, nodev, ...) are kept
keep=" /tmp /var/tmp $rw "
awk '{ print $5, $6 }' /proc/self/mountinfo | while read -r mp opts; do
    mp=$(printf '%b' "$(echo "$mp" | sed 's/\\\([0-7][0-7][0-7]\)/\\0\1/g')")
    case "$mp" in
    /proc | /proc/* | /dev | /dev/*) continue ;;
    esac
    case "$keep" in *" $mp "*) continue ;; esac
    case ",$opts," in *,ro,*) continue ;; esac
    flags=$(echo "$opts" | tr ',' '\n' | grep -xE 'nosuid|nodev|noexec|noatime|nodiratime|relatime|strictatime' | tr '\n' ',')
    mount -o "remount,bind,ro,${flags%,}" "$mp"
done

cd /
umask "$(val UMask)"
nofile=$(val LimitNOFILE) # N, or SOFT:HARD
if ! prlimit --pid $$ --nofile="${nofile%%:*}:${nofile#*:}" 2>/dev/null; then
    # raising the hard limit needs CAP_SYS_RESOURCE, which systemd has and
    # a test environment may not: then as close as this machine allows
    hard=$(ulimit -Hn)
    echo "unit-view: LimitNOFILE=$nofile cannot be set here (no CAP_SYS_RESOURCE?):" \
        "soft and hard limit $hard instead" >&2
    prlimit --pid $$ --nofile="$hard:$hard"
fi
caps=""
for c in $(val CapabilityBoundingSet); do
    c=${c#CAP_}
    caps="$caps,+$(echo "$c" | tr 'A-Z' 'a-z')"
done
# shellcheck disable=SC2046
exec setpriv --no-new-privs --bounding-set "-all$caps" -- $(val ExecStart)
