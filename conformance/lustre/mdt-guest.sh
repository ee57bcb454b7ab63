# shellcheck shell=bash disable=SC2154 # kver: set by mdt-check
# mdt-check's initramfs, sourced by mdt-check (which sets kver and step): the kernel's modules
# and Lustre's from a built tree, Lustre's utilities with their libraries, Debian's mke2fs and
# e2fsck behind kc_mke2fs_wrapper, dash as /bin/sh (busybox's popen would run its own mke2fs),
# and kc_mdt_init as /init.

# What the guest loads, dependencies resolved by kc_depends_order; quota_tree and quota_v2 are
# named because there is no modprobe to load them on demand.
MDT_MODULES="e1000 virtio_pci virtio_blk crc32c_generic crct10dif_generic quota_tree quota_v2
libcfs lnet ksocklnd obdclass ptlrpc fld fid lquota ldiskfs osd_ldiskfs mgc mgs lfsck mdd lod
osp mdt ofd mdc lmv lov osc lustre"
MDT_UTILS="mount.lustre lctl mkfs.lustre lfs"

# mdt_initramfs BUILT IR OUT
mdt_initramfs() {
	local built=$1 ir=$2 out=$3 b l
	# shellcheck disable=SC2317 # called through kc_depends_order
	_mdt_resolve() {
		local f
		f=$(find "$built/libcfs" "$built/lnet" "$built/lustre" "$built/ldiskfs" \
			-name "$1.ko" -not -path '*kconftest*' 2>/dev/null | head -1)
		[ -n "$f" ] || f=$(modinfo -k "$kver" -n "$1" 2>/dev/null) || return 1
		echo "$f"
		modinfo -F depends "$f"
	}
	# shellcheck disable=SC2086 # MDT_MODULES is a word list
	kc_depends_order _mdt_resolve $MDT_MODULES | while read -r name path; do
		case $name in lnet) echo "$name $path networks=tcp(eth0)" ;; *) echo "$name $path" ;; esac
	done > "$ir.list"
	{ grep '^e1000 ' "$ir.list"; grep -v '^e1000 ' "$ir.list"; } > "$ir.order"
	kc_stage "$ir" /bin/busybox "$ir.order"
	strip --strip-debug "$ir"/m/*.ko
	kc_mdt_init > "$ir/init"
	mkdir -p "$ir/wrap" "$ir/lib/x86_64-linux-gnu" "$ir/lib64" "$ir/lustre/utils" \
		"$ir/usr/local/lib/lustre" "$ir/usr/lib/lustre"
	for b in $MDT_UTILS; do cp "$built/lustre/utils/.libs/$b" "$ir/sbin/"; done
	for l in lustre/utils usr/local/lib/lustre usr/lib/lustre; do
		cp "$built/lustre/utils/mount_osd_ldiskfs.so" "$ir/$l/"
	done
	ln -s mount.lustre "$ir/sbin/mount.lustre_tgt"
	cp "$(command -v mke2fs)" "$(command -v e2fsck)" "$ir/sbin/"
	kc_mke2fs_wrapper > "$ir/wrap/mke2fs"
	cp "$(command -v dash)" "$ir/bin/sh"
	chmod 755 "$ir/wrap/mke2fs" "$ir/init"
	for b in "$ir"/bin/sh "$ir"/sbin/* "$ir"/lustre/utils/*.so; do
		LD_LIBRARY_PATH=$built/lustre/utils/.libs:$built/lnet/utils/lnetconfig/.libs:$built/lib/libcfs/.libs \
			ldd "$b" 2>/dev/null | awk '/=>/ { print $3 }'
	done | sort -u | while read -r l; do cp -L "$l" "$ir/lib/x86_64-linux-gnu/"; done
	cp -L /lib64/ld-linux-x86-64.so.2 "$ir/lib64/"
	strip --strip-unneeded "$ir"/sbin/* "$ir"/lib/x86_64-linux-gnu/* 2>/dev/null || true
	cut -d' ' -f1 "$ir/m/load" | tr '\n' ' '; echo
	kc_cpio "$ir" "$out"
}
