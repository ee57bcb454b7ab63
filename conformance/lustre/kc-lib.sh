# shellcheck shell=bash
# The pieces of kernel-check that need no Lustre tree, no root, no qemu and no kernel: the
# guest's init, the initramfs tree and archive, the order modules load in, and the reading of
# the guest's console into one verdict per vector. Sourced by kernel-check and by
# conformance/tests/kernel_check.rs, which runs them on made-up inputs.

# The name the test module prints under (lustre_<module>_<run_id>: ...).
KC_MODULE=dne_prepare_test

# kc_init: the guest's /init. It loads /m/<name>.ko in the order of /m/load ("name args" per
# line), bringing eth0 up before ksocklnd, reports each load as "KC: load NAME rc=N", then dumps
# the kernel log between markers and powers off. A load failure stops the loading (what comes
# after depends on it) but not the dump.
kc_init() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo "KC: boot"
while read -r name args; do
	if [ "$name" = ksocklnd ]; then
		ip link set lo up; ip link set eth0 up
		ip addr add 10.0.2.15/24 dev eth0; sleep 1
	fi
	insmod "/m/$name.ko" $args >/tmp/err 2>&1
	rc=$?
	echo "KC: load $name rc=$rc $(cat /tmp/err)"
	[ $rc = 0 ] || break
done < /m/load
echo "KC: dmesg begin"
dmesg
echo "KC: dmesg end"
echo "KC: end"
poweroff -f
EOF
}

# kc_stage DIR BUSYBOX LOADLIST: the initramfs tree in DIR. LOADLIST has one module a line,
# "name path [args]", in load order; each is copied to /m/<name>.ko.
kc_stage() {
	local dir=$1 busybox=$2 list=$3 name path args
	rm -rf "$dir"
	mkdir -p "$dir"/bin "$dir"/sbin "$dir"/proc "$dir"/sys "$dir"/dev "$dir"/tmp "$dir"/m
	cp "$busybox" "$dir/bin/busybox"
	kc_init > "$dir/init"
	chmod 755 "$dir/init" "$dir/bin/busybox"
	: > "$dir/m/load"
	while read -r name path args; do
		[ -n "$name" ] || continue
		[ -f "$path" ] || { echo "kc_stage: $name: no module at $path" >&2; return 1; }
		cp "$path" "$dir/m/$name.ko"
		echo "$name${args:+ $args}" >> "$dir/m/load"
	done < "$list"
}

# kc_cpio DIR OUT: DIR as a gzipped newc archive, the form the kernel unpacks as its rootfs.
kc_cpio() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) | gzip -1 > "$2"
}

# kc_depends_order RESOLVE NAME...: NAME... and what they depend on, dependencies first, each
# once. RESOLVE is a command printing "path" and then the module's depends (comma separated)
# for a name, on two lines; the real one is modinfo on the built tree and the kernel's modules.
kc_depends_order() {
	local resolve=$1 seen=" " out=()
	shift
	_kc_visit() {
		local n=$1 info path deps d
		case "$seen" in *" $n "*) return 0 ;; esac
		seen="$seen$n "
		info=$($resolve "$n") || { echo "kc_depends_order: no module $n" >&2; return 1; }
		path=$(printf '%s\n' "$info" | sed -n 1p)
		deps=$(printf '%s\n' "$info" | sed -n 2p)
		for d in ${deps//,/ }; do
			_kc_visit "$d" || return 1
		done
		out+=("$n $path")
	}
	for n in "$@"; do
		_kc_visit "$n" || return 1
	done
	printf '%s\n' "${out[@]}"
}

# kc_verdicts LOG: one line per vector, "vector ID: passed|refused|FAILED ...", the problems
# (a load failure, an LBUG, an assertion, an Oops, a panic, no end of run, a vector counted twice
# or missing against the module's own count), then the summary as its last line:
#   kernel-check: P passed, F failed, S skipped
# Refused invalid vectors count as passed. Returns 0 only when nothing failed.
kc_verdicts() {
	tr -d '\r' < "$1" | awk -v mod="lustre_${KC_MODULE}_" '
	function problem(s) { problems[++np] = s }
	/KC: load / {
		split($0, a, "KC: load "); split(a[2], w, " ")
		if (w[2] != "rc=0") problem("module " w[1] " failed to load: " a[2])
		loaded[w[1]] = 1
	}
	/KC: end$/ { ended = 1 }
	/LBUG|ASSERTION|LASSERT|Oops|Kernel panic|BUG: |general protection fault|Call Trace/ {
		if (!(crash[$0]++)) problem("kernel: " $0)
	}
	index($0, mod) {
		line = substr($0, index($0, mod) + length(mod))
		sub(/^[0-9]+: /, "", line)
		if (match(line, /^[0-9]+ cases: /)) {
			split(line, f, /[ ,()]+/)
			# passed counts the valid ones, refused the invalid ones
			ncases = f[1]; npassed = f[3] + f[5]; nfailed = f[12]
			nskipped = f[14]
			summary = 1
			next
		}
		if (line ~ /^DNE prepare test passed/) { module_ok = 1; next }
		if (!match(line, /^[0-9]+: /)) next
		id = substr(line, 1, RLENGTH - 2); rest = substr(line, RLENGTH + 1)
		if (rest ~ /^failed: /) v = "FAILED " substr(rest, 9)
		else if (rest == "passed") v = "passed"
		else if (rest ~ / refused by /) v = rest
		else if (rest ~ /^refused as /) { why[id] = rest; next }
		else next
		# a line seen twice (console and dump) counts once; a failure stays
		if (id in verdict && verdict[id] ~ /^FAILED/) next
		if (!(id in verdict)) order[++nid] = id
		verdict[id] = v
	}
	END {
		passed = 0; failed = 0
		for (i = 1; i <= nid; i++) {
			id = order[i]; v = verdict[id]
			if (v ~ /^FAILED/) { failed++; if (id in why) v = v " (" why[id] ")" }
			else passed++
			print "vector " id ": " v
		}
		if (!ended) problem("the guest did not reach the end of its run")
		if (!summary) problem("the test module printed no summary")
		else {
			if (nid != ncases)
				problem("the module ran " ncases " cases, the log shows " nid)
			if (npassed + nfailed != ncases)
				problem("the module counts " npassed " passed and " nfailed " failed of " ncases)
			if (nfailed + 0 != failed)
				problem("the module counts " nfailed " failed, the log shows " failed)
		}
		if (summary && !module_ok && failed == 0)
			problem("the test module did not print that it passed")
		for (i = 1; i <= np; i++) print "problem: " problems[i]
		skipped = summary ? nskipped + 0 : 0
		# vectors the module ran but the log does not show failed too
		if (summary && ncases > nid) failed += ncases - nid
		printf "kernel-check: %d passed, %d failed, %d skipped", passed, failed, skipped
		if (np > 0) printf " (%d problem%s: FAIL)", np, (np > 1 ? "s" : "")
		printf "\n"
		exit (failed > 0 || np > 0) ? 1 : 0
	}'
}

# kc_rpc_counts LOG: the RPCs a Lustre debug log (`lctl dk` with +rpctrace) shows sent, counted
# as the two-MDT runs of docs/lustre-patch.md count them: one line "COUNT THREAD CLUUID OPCODE"
# per sending thread (its numbers dropped: mdt00_001 and mdt00_003 are both "mdt"), import
# (the sender's cluuid: lfs-MDT0001-mdtlov_UUID is MDT1's OSP) and opcode, pings and statfs left
# out. Opcodes without a name here print as opc=N.
kc_rpc_counts() {
	awk 'BEGIN {
		names[13] = "OST_CREATE"; names[36] = "MDS_REINT"; names[101] = "LDLM_ENQUEUE"
		names[103] = "LDLM_CANCEL"; names[104] = "LDLM_BL_CALLBACK"
		names[105] = "LDLM_CP_CALLBACK"; names[700] = "SEQ_QUERY"
		names[900] = "FLD_QUERY"; names[1000] = "OUT_UPDATE"
	}
	/Sending RPC req@/ {
		for (i = 1; i < NF; i++) if ($i == "pname:cluuid:pid:xid:nid:opc:job") break
		if (i >= NF || split($(i + 1), f, ":") < 7) next
		opc = f[6]
		if (opc == 400 || opc == 41) next
		thread = f[1]; sub(/[-_0-9]+$/, "", thread)
		count[thread " " f[2] " " ((opc in names) ? names[opc] : "opc=" opc)]++
	}
	END { for (k in count) print count[k], k }' "$1" | LC_ALL=C sort -k2
}

# --- mdt-check: the two-MDT guest (docs/lustre-patch.md, "The protocol used on a two-MDT Lustre")

# kc_mdt_init: the guest's /init for mdt-check. It loads /m/<name>.ko in the order of /m/load,
# giving mdt dne_prepare=N from the kernel command line (dnep=N), formats MGS+MDT0 on vda, MDT1
# on vdb and OST0 on vdc (a client mount waits for an OST), mounts them and a client, prints
# each MDT-to-MDT import's connect flags ("KC: flags IMPORT [ ... ]"), then runs the operations
# with rpctrace on, each between "KC: op N NAME begin" and "KC: op N end rc=R" with the debug
# log's sent RPCs and DNE prepare lines in between, prints where each directory is ("KC: where
# PATH mdt=N fid=FID") and powers off. mkfs runs through
# /wrap/mke2fs (Debian's mke2fs lacks dirdata) and e2fsck fixes the quota usage that the
# quotaio stand-in leaves unset.
kc_mdt_init() {
	cat <<'EOF2'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/wrap:/sbin:/bin LD_LIBRARY_PATH=/lib/x86_64-linux-gnu LUSTRE=/lustre
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mkdir -p /tmp /run /etc /mnt/mdt0 /mnt/mdt1 /mnt/ost0 /mnt/lfs
echo "/dev/root / rootfs rw 0 0" > /etc/mtab
dnep=1
for w in $(cat /proc/cmdline); do case $w in dnep=*) dnep=${w#dnep=} ;; esac; done
echo "KC: boot dne_prepare=$dnep"
while read -r name args; do
	if [ "$name" = ksocklnd ]; then
		ip link set lo up; ip link set eth0 up
		ip addr add 10.0.2.15/24 dev eth0; sleep 2
	fi
	[ "$name" = mdt ] && args="dne_prepare=$dnep"
	insmod "/m/$name.ko" $args >/tmp/err 2>&1
	rc=$?
	echo "KC: load $name rc=$rc $(cat /tmp/err)"
	[ $rc = 0 ] || { echo "KC: end"; poweroff -f; }
done < /m/load
target() { # DEV DIR mkfs-args...
	dev=$1 dir=$2; shift 2
	mkfs.lustre --reformat --fsname=lfs --backfstype=ldiskfs "$@" "$dev" >/tmp/mkfs 2>&1 ||
		{ echo "KC: mkfs $dev failed"; tail -5 /tmp/mkfs; }
	e2fsck -fy "$dev" >/dev/null 2>&1
	mount.lustre_tgt "$dev" "$dir" 2>&1 | tail -3
	echo "KC: mount $dev rc=$(grep -c " $dir " /proc/mounts)"
}
target /dev/vda /mnt/mdt0 --mgs --mdt --index=0
target /dev/vdb /mnt/mdt1 --mdt --index=1 --mgsnode=10.0.2.15@tcp
for i in $(seq 1 60); do
	lctl get_param -n osp.lfs-MDT0001-osp-MDT0000.import 2>/dev/null | grep -q 'state: FULL' && break
	sleep 2
done
for o in osp.lfs-MDT0001-osp-MDT0000 osp.lfs-MDT0000-osp-MDT0001; do
	echo "KC: flags $o $(lctl get_param -n $o.import 2>/dev/null | sed -n 's/.*connect_flags: //p' | head -1)"
done
lctl set_param mdt.*.identity_upcall=NONE >/dev/null 2>&1
target /dev/vdc /mnt/ost0 --ost --index=0 --mgsnode=10.0.2.15@tcp
mount.lustre 10.0.2.15@tcp:/lfs /mnt/lfs > /tmp/cm 2>&1 &
for i in $(seq 1 45); do grep -q ' /mnt/lfs ' /proc/mounts && break; sleep 2; done
echo "KC: client mount rc=$(grep -c ' /mnt/lfs ' /proc/mounts)"
op() { # N NAME command...
	n=$1 name=$2; shift 2
	lctl clear
	echo "KC: op $n $name begin"
	"$@" >/tmp/op 2>&1; rc=$?
	lctl dk /tmp/dk >/dev/null 2>&1
	grep -aE 'Sending RPC|DNE prepare' /tmp/dk
	cat /tmp/op
	echo "KC: op $n end rc=$rc"
}
if grep -q ' /mnt/lfs ' /proc/mounts; then
	lctl set_param debug_mb=64 >/dev/null 2>&1; lctl set_param debug=+rpctrace >/dev/null 2>&1
	op 1 lfs-mkdir-i1 lfs mkdir -i 1 /mnt/lfs/remote
	op 2 mkdir-local mkdir /mnt/lfs/remote/child
	op 3 lfs-mkdir-i0-remote-parent lfs mkdir -i 0 /mnt/lfs/remote/back
	op 4 mkdir-in-back mkdir /mnt/lfs/remote/back/leaf
	for p in remote remote/child remote/back remote/back/leaf; do
		echo "KC: where $p mdt=$(lfs getdirstripe -m /mnt/lfs/$p) fid=$(lfs path2fid /mnt/lfs/$p)"
	done
	umount /mnt/lfs
fi
dmesg | grep -E 'LBUG|ASSERTION|Oops|Call Trace|BUG: ' | sed 's/^/KC: kernel /'
umount /mnt/ost0; umount /mnt/mdt1; umount /mnt/mdt0
echo "KC: end"
poweroff -f
EOF2
}

# kc_mke2fs_wrapper: a /wrap/mke2fs that runs Debian's mke2fs with Lustre's "dirdata" feature
# taken out of its arguments (Debian's mke2fs does not know it; the MDT mounts without it and
# logs that dirdata is off).
kc_mke2fs_wrapper() {
	cat <<'EOF2'
#!/bin/sh
n=$#
for a in "$@"; do
	case $a in
	*dirdata*) a=$(echo "$a" | sed 's/,dirdata//g; s/dirdata,//g; s/^dirdata$//') ;;
	esac
	set -- "$@" "$a"
done
shift "$n"
exec /sbin/mke2fs "$@"
EOF2
}

# kc_mdt_report LOG: what a guest of kc_mdt_init showed: the switch, each MDT-to-MDT import with
# "dne_prepare negotiated" or "not negotiated", then per operation its exit code, the OSP's DNE
# prepare verdicts and its RPC counts (kc_rpc_counts), then where each directory is ("where
# PATH mdt=N fid=FID", the outcome two boots compare). Returns 1 when a module failed to load,
# the client did not mount, an operation failed, the kernel logged a crash or the guest did not
# end; 0 otherwise.
kc_mdt_report() {
	local log=$1 tmp rc=0 n
	tmp=$(mktemp -d)
	tr -d '\r' < "$log" > "$tmp/log"
	sed -n 's/.*KC: boot dne_prepare=\([0-9]*\).*/dne_prepare=\1/p' "$tmp/log" | head -1
	sed -n 's/.*KC: flags \([^ ]*\) \(.*\)/\1 \2/p' "$tmp/log" | while read -r imp flags; do
		case "$flags" in
		*dne_prepare*) echo "$imp: dne_prepare negotiated" ;;
		*) echo "$imp: dne_prepare not negotiated" ;;
		esac
	done
	grep -aE 'KC: load [^ ]+ rc=[1-9]' "$tmp/log" && rc=1
	grep -aq 'KC: client mount rc=1' "$tmp/log" || { echo "problem: no client mount"; rc=1; }
	sed -n 's/.*KC: op \([0-9]*\) [^ ]* begin$/\1/p' "$tmp/log" > "$tmp/ops"
	while read -r n; do
		awk -v n="$n" '$0 ~ "KC: op " n " [^ ]* begin$" { on = 1; next }
			$0 ~ "KC: op " n " end" { on = 0 } on' "$tmp/log" > "$tmp/op"
		sed -n "s/.*KC: op $n \\([^ ]*\\) begin\$/op $n \\1/p" "$tmp/log" | head -1 | tr '\n' ' '
		sed -n "s/.*KC: op $n end \\(rc=[0-9]*\\).*/\\1/p" "$tmp/log" | head -1
		grep -a "KC: op $n end rc=0" "$tmp/log" > /dev/null || rc=1
		sed -n 's/.*: \(DNE prepare .*\)/  \1/p' "$tmp/op"
		kc_rpc_counts "$tmp/op" | sed 's/^/  /'
	done < "$tmp/ops"
	sed -n 's/.*KC: \(where .*\)/\1/p' "$tmp/log"
	grep -aq 'KC: kernel ' "$tmp/log" && { grep -a 'KC: kernel ' "$tmp/log"; rc=1; }
	grep -aq 'KC: end$' "$tmp/log" || { echo "problem: the guest did not reach the end"; rc=1; }
	rm -rf "$tmp"
	return $rc
}

# kc_mdt_same_outcome REPORT1 REPORT2: whether two reports of kc_mdt_report put the same
# directories on the same MDTs with the same FIDs (their "where" lines), and have some.
kc_mdt_same_outcome() {
	local a b
	a=$(grep '^where ' "$1") && b=$(grep '^where ' "$2") && [ "$a" = "$b" ]
}
