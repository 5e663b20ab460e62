package safefs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Repair is a permission made private again: something the tool owns in its
// state directory had group or other bits set (someone ran chmod, or a
// program created a file under a loose umask), and they were taken away.
type Repair struct {
	Rel      string // slash-separated, relative to the root; "." is the root
	Path     string
	From, To fs.FileMode
}

// SetRepairLog makes r report every repair to f (the service logs them).
// Set it before r is shared between goroutines.
func (r *Root) SetRepairLog(f func(Repair)) { r.onRepair = f }

// unsafeError is a refusal that says, after the path, what is wrong:
// "belongs to uid 65534, not to you (uid 1000)".
type unsafeError string

func (e unsafeError) Error() string        { return string(e) }
func (e unsafeError) Is(target error) bool { return target == ErrUnsafe }

// otherOwner refuses what belongs to uid: another user could read or change
// evidence through it.
func otherOwner(uid uint32) error {
	return unsafeError(fmt.Sprintf("belongs to uid %d, not to you (uid %d)", uid, os.Getuid()))
}

// errNotRegular is returned when a file operation meets a directory, FIFO,
// device or socket: state files are always regular files.
var errNotRegular = unsafeError("is not a regular file")

// Explain names the refused path and the reason in words, such as
// "/home/u/.agent-debug-mode/sessions is a symbolic link", or returns ""
// when err is not a refusal by this package.
func Explain(err error) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return ""
	}
	var ue unsafeError
	switch {
	case errors.Is(pe.Err, ErrSymlink):
		return pe.Path + " is a symbolic link"
	case errors.As(pe.Err, &ue):
		return pe.Path + " " + string(ue)
	}
	return ""
}

// join is the full path of rel.
func (r *Root) join(rel string) string {
	if rel == "" || rel == "." {
		return r.path
	}
	return filepath.Join(r.path, rel)
}

// checkOwned refuses an object (fd, described by st) that belongs to another
// user, and takes group and other permissions away from one of ours.
func (r *Root) checkOwned(fd int, rel string, st *unix.Stat_t) error {
	if int(st.Uid) != os.Getuid() {
		return &fs.PathError{Op: "check", Path: r.join(rel), Err: otherOwner(st.Uid)}
	}
	if st.Mode&0o077 == 0 {
		return nil
	}
	from := fs.FileMode(st.Mode & 0o777)
	to := from & 0o700
	if err := unix.Fchmod(fd, uint32(to)); err != nil {
		return &fs.PathError{Op: "check", Path: r.join(rel), Err: unsafeError(fmt.Sprintf("is open to other users (mode %#o) and cannot be made private: %v", from, err))}
	}
	st.Mode = st.Mode&^0o777 | uint32(to)
	if r.onRepair != nil {
		r.onRepair(Repair{Rel: rel, Path: r.join(rel), From: from, To: to})
	}
	return nil
}

// checkDirFd checks the directory open at fd, which is rel.
func (r *Root) checkDirFd(fd int, rel string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	return r.checkOwned(fd, rel, &st)
}

// FileID identifies a file or directory (device and inode), so a caller can
// tell whether a path still names the object it opened.
type FileID struct{ Dev, Ino uint64 }

// IDOf identifies an open file.
func IDOf(f *os.File) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return FileID{}, err
	}
	return FileID{uint64(st.Dev), st.Ino}, nil
}

// Identify checks rel without following any link (it must be a regular file
// or a directory of ours; one open to other users is made private) and
// returns its identity.
func (r *Root) Identify(rel string) (FileID, error) {
	const op = "check"
	dfd, name, err := r.resolve(op, rel)
	if err != nil {
		return FileID{}, err
	}
	defer unix.Close(dfd)
	return r.identifyAt(dfd, name, rel)
}

// IdentifyDir is Identify for directory rel and for the named entries in
// it, resolving rel only once: what a holder of open descriptors runs
// before every request to learn whether the paths still name them.
func (r *Root) IdentifyDir(rel string, names ...string) (FileID, []FileID, error) {
	const op = "check"
	dfd, name, err := r.resolve(op, rel)
	if err != nil {
		return FileID{}, nil, err
	}
	defer unix.Close(dfd)
	dir, err := r.identifyAt(dfd, name, rel)
	if err != nil {
		return FileID{}, nil, err
	}
	fd, err := openDirAt(dfd, name)
	if err != nil {
		return FileID{}, nil, r.fail(op, rel, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileID{}, nil, r.fail(op, rel, err)
	}
	if (FileID{uint64(st.Dev), st.Ino}) != dir {
		return FileID{}, nil, r.fail(op, rel, unsafeError("was replaced while it was being checked"))
	}
	ids := make([]FileID, len(names))
	for i, n := range names {
		if ids[i], err = r.identifyAt(fd, n, rel+"/"+n); err != nil {
			return FileID{}, nil, err
		}
	}
	return dir, ids, nil
}

// identifyAt is Identify for name in directory dfd, which is rel's parent.
func (r *Root) identifyAt(dfd int, name, rel string) (FileID, error) {
	const op = "check"
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return FileID{}, r.fail(op, rel, err)
	}
	id := FileID{uint64(st.Dev), st.Ino}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return FileID{}, r.fail(op, rel, ErrSymlink)
	case unix.S_IFDIR, unix.S_IFREG:
	default:
		return FileID{}, r.fail(op, rel, errNotRegular)
	}
	if int(st.Uid) == os.Getuid() && st.Mode&0o077 == 0 {
		return id, nil
	}
	// Refusing or repairing needs the object itself: open it without
	// following a link, and make sure it is the one just looked at.
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		flags = dirFlags
	}
	fd, err := unix.Openat(dfd, name, flags, 0)
	if err != nil {
		return FileID{}, r.fail(op, rel, linkErr(dfd, name, err))
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil {
		return FileID{}, r.fail(op, rel, err)
	}
	if (FileID{uint64(st.Dev), st.Ino}) != id {
		return FileID{}, r.fail(op, rel, unsafeError("was replaced while it was being checked"))
	}
	return id, r.checkOwned(fd, rel, &st)
}

// Exists says whether anything, even a symbolic link, is at rel (not
// followed). The directories leading to it must be safe.
func (r *Root) Exists(rel string) (bool, error) {
	dfd, name, err := r.resolve("stat", rel)
	if err != nil {
		return false, err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	switch err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err {
	case nil:
		return true, nil
	case unix.ENOENT:
		return false, nil
	default:
		return false, r.fail("stat", rel, err)
	}
}

// linkOnPath names the first component of rel that is a symbolic link, so a
// refusal can say which path to remove; rel itself when none is found (the
// link has gone since).
func (r *Root) linkOnPath(rel string) string {
	parts := strings.Split(rel, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		var st unix.Stat_t
		if unix.Fstatat(r.fd, prefix, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			break
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return prefix
		}
	}
	return rel
}

// Replaced says whether the root's path no longer names the directory r
// holds open: it was moved away, deleted, or replaced by another directory
// or a link. A long-running holder of r would otherwise keep serving (and
// writing into) a directory no one else sees any more.
func (r *Root) Replaced() bool {
	var held, now unix.Stat_t
	if unix.Fstat(r.fd, &held) != nil {
		return true
	}
	switch err := unix.Lstat(r.path, &now); err {
	case nil:
		return held.Dev != now.Dev || held.Ino != now.Ino
	case unix.ENOENT, unix.ENOTDIR:
		return true
	}
	return false // cannot tell (a transient failure): keep going
}
