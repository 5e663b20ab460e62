package safefs

import (
	"golang.org/x/sys/unix"
)

// RenameNoReplace moves regular file oldRel to newRel (both beneath the
// root, links refused on both paths) only if newRel does not exist yet: an
// existing newRel is left alone and the error wraps fs.ErrExist. It is how
// a file that must be written once (a capture) is put in place.
func (r *Root) RenameNoReplace(oldRel, newRel string) error {
	const op = "rename"
	odfd, oname, err := r.resolve(op, oldRel)
	if err != nil {
		return err
	}
	defer unix.Close(odfd)
	ndfd, nname, err := r.resolve(op, newRel)
	if err != nil {
		return err
	}
	defer unix.Close(ndfd)
	var st unix.Stat_t
	if err := unix.Fstatat(odfd, oname, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return r.fail(op, oldRel, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return r.fail(op, oldRel, errNotRegular)
	}
	err = unix.Renameat2(odfd, oname, ndfd, nname, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		// A file system without RENAME_NOREPLACE: a hard link fails just the
		// same when the name exists, then the old name goes.
		if err = unix.Linkat(odfd, oname, ndfd, nname, 0); err == nil {
			err = unix.Unlinkat(odfd, oname, 0)
		}
	}
	return r.fail(op, newRel, err)
}
