# shellcheck shell=bash disable=SC2154 # tree, patch, work, hdr, repo: set by mdt-check
# mdt-check's server build, sourced by mdt-check (which sets tree, patch, work, hdr, repo and
# step). The series and the ldiskfs patch go onto a copy of the tree; only the files whose bytes
# changed are copied into the build tree, so a re-run with the same --work rebuilds only what
# changed. The ldiskfs patch lives in the work directory only.

# The ldiskfs series name configure is given (LDISKFS_SERIES drops the "ldiskfs-" prefix that
# the Makefile adds back).
MDT_LDISKFS_SERIES=6.1.192-kc.series

mdt_series() {
	local series=$work/series p
	rm -rf "$series" "$work/patched"
	if [ -n "${DNE_INTENT:-}" ]; then
		"$DNE_INTENT" lustre-patch --out "$series" --tree "$tree"
	else
		(cd "$repo" && cargo run -q -p dne-intent --bin dne-intent -- \
			lustre-patch --out "$series" --tree "$tree")
	fi
	cp -a "$tree" "$work/patched"
	for p in "$series"/*.patch; do
		(cd "$work/patched" && patch -p1 -s --no-backup-if-mismatch < "$p") ||
			{ echo "mdt-check: $(basename "$p") does not apply" >&2; return 1; }
	done
	mkdir -p "$work/patched/ldiskfs/kernel_patches/patches/kc"
	cp "$patch" "$work/patched/ldiskfs/kernel_patches/patches/kc/ldiskfs-all.patch"
	echo kc/ldiskfs-all.patch > "$work/patched/ldiskfs/kernel_patches/series/ldiskfs-$MDT_LDISKFS_SERIES"
}

# mdt_sync FROM TO: the files of FROM whose bytes differ in TO, copied with a new mtime, and
# its symbolic links as links (lustre/utils/erasurecode links its sources from lustre/ec).
mdt_sync() {
	local f
	mkdir -p "$2"
	(cd "$1" && find . -type l) | while read -r f; do
		[ "$(readlink "$1/$f")" = "$(readlink "$2/$f" 2>/dev/null)" ] && continue
		mkdir -p "$(dirname "$2/$f")"
		rm -f "$2/$f"
		cp -P "$1/$f" "$2/$f"
	done
	(cd "$1" && find . -type f) | while read -r f; do
		cmp -s "$1/$f" "$2/$f" 2>/dev/null && continue
		mkdir -p "$(dirname "$2/$f")"
		cp -p "$1/$f" "$2/$f"
		touch "$2/$f"
	done
}

# configure looks for ext4's sources under --with-linux: the common headers, with fs/ext4 from
# linux-source-6.1 (the ext4 that ldiskfs patches).
mdt_linux_tree() {
	local common=${hdr%-amd64}-common lin=$work/linux-common e
	[ -d "$lin/fs/ext4" ] && return 0
	mkdir -p "$lin/fs"
	for e in "$common"/*; do ln -sfn "$e" "$lin/$(basename "$e")"; done
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$work" linux-source-6.1/fs/ext4
	cp -a "$work/linux-source-6.1/fs/ext4" "$lin/fs/"
}

# Debian's libext2fs-dev has no <ext2fs/quotaio.h> (Lustre's e2fsprogs has): mkfs.lustre then
# leaves the quota usage unset, which the guest's e2fsck -fy fixes.
mdt_quotaio_stub() {
	mkdir -p "$work/shim/ext2fs"
	cat > "$work/shim/ext2fs/quotaio.h" <<'EOF2'
/* mdt-check: no-op quota calls for Debian's libext2fs, which lacks this header. */
#ifndef MDT_CHECK_QUOTAIO_H
#define MDT_CHECK_QUOTAIO_H
#include <ext2fs/ext2fs.h>
enum { USRQUOTA, GRPQUOTA, PRJQUOTA };
#define QUOTA_USR_BIT (1 << USRQUOTA)
#define QUOTA_GRP_BIT (1 << GRPQUOTA)
#define QUOTA_PRJ_BIT (1 << PRJQUOTA)
#define QUOTA_ALL_BIT (QUOTA_USR_BIT | QUOTA_GRP_BIT | QUOTA_PRJ_BIT)
typedef void *quota_ctx_t;
static inline errcode_t quota_init_context(quota_ctx_t *ctx, ext2_filsys fs, unsigned int types)
{ (void)fs; (void)types; *ctx = NULL; return 0; }
static inline void quota_compute_usage(quota_ctx_t ctx) { (void)ctx; }
static inline errcode_t quota_write_inode(quota_ctx_t ctx, unsigned int types)
{ (void)ctx; (void)types; return 0; }
static inline void quota_release_context(quota_ctx_t *ctx) { (void)ctx; }
#endif
EOF2
}

mdt_build() {
	local build=$work/build
	step "the series and the ldiskfs patch"
	mdt_series
	mdt_sync "$work/patched" "$build"
	mdt_linux_tree
	mdt_quotaio_stub
	step "configure"
	# EXT2FS_*: Debian's e2fsprogs is not Lustre's (>= 1.47.3-wc2); --enable-client: a
	# server-only build leaves fld/ out and fid.ko unresolved.
	if [ ! -f "$build/config.h" ]; then
		(cd "$build" && nice -n 10 sh autogen.sh > "$work/autogen.log" 2>&1 &&
			nice -n 10 ./configure --enable-server --enable-client --enable-ldiskfs \
				--without-zfs --disable-gss --disable-doc --disable-manpages \
				--disable-iokit --without-o2ib --disable-tests \
				--with-linux="$work/linux-common" --with-linux-obj="$hdr" \
				LDISKFS_SERIES="$MDT_LDISKFS_SERIES" EXT2FS_CFLAGS=" " \
				EXT2FS_LIBS="-lext2fs -lcom_err" > "$work/configure.log" 2>&1) ||
			{ tail -20 "$work/configure.log"; return 1; }
	fi
	step "build (modules, then utilities)"
	(cd "$build" && nice -n 10 make -j2 modules > "$work/make.log" 2>&1 &&
		nice -n 10 make -j2 utils libmount_utils_ldiskfs_a_CPPFLAGS="-I$work/shim" \
			>> "$work/make.log" 2>&1) ||
		{ grep -E 'error|Error' "$work/make.log" | head -20; return 1; }
}
