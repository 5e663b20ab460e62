// Package safefs performs file operations inside the tool's private state
// directory (~/.agent-debug-mode) without ever following a symbolic link.
//
// The state root must be a real directory owned by the current user with no
// group or other permissions, and every path below it is resolved one
// component at a time with symlinks refused. That way another local user, or
// a link planted inside the directory, cannot redirect our writes (or reads,
// or recursive deletes) to a file outside it.
//
// Links above the root itself (for example a symlinked $HOME) are accepted:
// the caller chose that path, and only what lies beneath it is guarded.
//
// The package is Linux-only: it relies on openat2(2) where available and on
// the *at family of system calls with O_NOFOLLOW otherwise.
package safefs

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// ErrSymlink is wrapped by every error caused by a symbolic link on the path.
var ErrSymlink = errors.New("symbolic link refused")

// ErrUnsafe is wrapped when the root, or anything beneath it, is not what
// it must be: owned by another user, of the wrong type, or impossible to
// make private. Explain turns such an error into words.
var ErrUnsafe = errors.New("unsafe state directory")

const (
	// dirFlags opens a directory for use as a dirfd, refusing a final symlink.
	dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	// resolveFlags makes openat2 refuse every symlink and any escape from the root.
	resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
	// how2Flags omits O_NOFOLLOW: RESOLVE_NO_SYMLINKS already covers the last
	// component and reports ELOOP, where O_NOFOLLOW would turn it into ENOTDIR.
	how2Flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
)

var (
	// forceWalk disables openat2 so tests can exercise the fallback walk.
	forceWalk bool

	openat2Once sync.Once
	openat2OK   bool
)

// haveOpenat2 reports whether openat2 works here, probing once. Any failure of
// the trivial probe (ENOSYS before Linux 5.6, EPERM from seccomp profiles
// that predate the call) selects the component walk, which is equally safe.
func haveOpenat2(dirfd int) bool {
	if forceWalk {
		return false
	}
	openat2Once.Do(func() {
		fd, err := unix.Openat2(dirfd, ".", &unix.OpenHow{Flags: how2Flags, Resolve: resolveFlags})
		if err == nil {
			unix.Close(fd)
		}
		openat2OK = err == nil
	})
	return openat2OK
}

// Root is an open, verified state directory. Every method resolves its rel
// argument beneath the directory descriptor held here, never by path string,
// so renaming things above the root cannot redirect operations.
// Close must not race with other methods.
type Root struct {
	path     string
	fd       int
	onRepair func(Repair)
}

// OpenRoot creates path if missing (and its parents, 0700), verifies that it
// is a real directory owned by the current user, tightens its mode to 0700 if
// group or other bits are set, and keeps a descriptor to it open.
func OpenRoot(path string) (*Root, error) {
	if path == "" {
		return nil, &fs.PathError{Op: "openroot", Path: path, Err: fs.ErrInvalid}
	}
	path = filepath.Clean(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	fail := func(err error) (*Root, error) {
		return nil, &fs.PathError{Op: "openroot", Path: path, Err: err}
	}
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fail(ErrSymlink)
	case !fi.IsDir():
		return fail(unsafeError("is not a directory"))
	}
	fd, err := unix.Open(path, dirFlags, 0)
	if err == unix.ENOTDIR || err == unix.ELOOP { // swapped for a link since Lstat
		return fail(ErrSymlink)
	} else if err != nil {
		return fail(err)
	}
	if err := checkPrivate(fd); err != nil {
		unix.Close(fd)
		return fail(err)
	}
	haveOpenat2(fd)
	return &Root{path: path, fd: fd}, nil
}

// checkPrivate verifies ownership through the open descriptor, not the path,
// so the object checked is the one we keep using.
func checkPrivate(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unsafeError("is not a directory")
	}
	if int(st.Uid) != os.Getuid() {
		return otherOwner(st.Uid)
	}
	if st.Mode&0o077 != 0 {
		if err := unix.Fchmod(fd, 0o700); err != nil {
			return unsafeError(fmt.Sprintf("is open to other users (mode %#o) and cannot be made private: %v", st.Mode&0o777, err))
		}
	}
	return nil
}

// Path returns the root's cleaned path.
func (r *Root) Path() string { return r.path }

// Close releases the root's directory descriptor.
func (r *Root) Close() error {
	if r.fd < 0 {
		return os.ErrClosed
	}
	err := unix.Close(r.fd)
	r.fd = -1
	return err
}

// split validates a slash-separated rel path and returns its directory
// components and final name. The name is "." when rel designates the root.
func split(rel string) (dirs []string, name string, err error) {
	switch {
	case rel == "":
		return nil, "", fmt.Errorf("%w: empty path", fs.ErrInvalid)
	case strings.IndexByte(rel, 0) >= 0:
		return nil, "", fmt.Errorf("%w: path contains NUL byte", fs.ErrInvalid)
	case strings.HasPrefix(rel, "/"):
		return nil, "", fmt.Errorf("%w: path is absolute", fs.ErrInvalid)
	}
	var parts []string
	for _, p := range strings.Split(rel, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return nil, "", fmt.Errorf("%w: path contains \"..\"", fs.ErrInvalid)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, ".", nil
	}
	return parts[:len(parts)-1], parts[len(parts)-1], nil
}

// fail wraps a non-nil error with op and the full path, turning ELOOP (the
// kernel's answer to a refused link) into ErrSymlink with the path of the
// link itself. An error that already names its path is returned as it is.
func (r *Root) fail(op, rel string, err error) error {
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe):
		return err
	case err == unix.ELOOP || err == ErrSymlink:
		if dirs, name, serr := split(rel); serr == nil && name != "." {
			rel = r.linkOnPath(strings.Join(append(dirs, name), "/"))
		}
		err = ErrSymlink
	}
	return &fs.PathError{Op: op, Path: filepath.Join(r.path, rel), Err: err}
}

// resolve validates rel and opens its parent directory without following any
// symlink. The caller closes dirfd and acts on name with *at calls using
// O_NOFOLLOW or AT_SYMLINK_NOFOLLOW, which guards the final component. The
// parent must be ours (one open to other users is made private), so every
// directory is checked whenever something in it is used.
func (r *Root) resolve(op, rel string) (dirfd int, name string, err error) {
	dirs, name, err := split(rel)
	if err != nil {
		return -1, "", &fs.PathError{Op: op, Path: rel, Err: err}
	}
	dirfd, err = r.openDir(dirs)
	if err != nil {
		return -1, "", r.fail(op, rel, err)
	}
	if err := r.checkDirFd(dirfd, strings.Join(dirs, "/")); err != nil {
		unix.Close(dirfd)
		return -1, "", r.fail(op, rel, err)
	}
	return dirfd, name, nil
}

// openDir opens the directory at dirs beneath the root, refusing symlinks.
func (r *Root) openDir(dirs []string) (int, error) {
	if len(dirs) == 0 {
		return unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	}
	if haveOpenat2(r.fd) {
		how := &unix.OpenHow{Flags: how2Flags, Resolve: resolveFlags}
		for try := 0; ; try++ {
			// EAGAIN means a concurrent rename disturbed the lookup; retry a little.
			fd, err := unix.Openat2(r.fd, strings.Join(dirs, "/"), how)
			if err != unix.EAGAIN || try == 8 {
				return fd, err
			}
		}
	}
	fd, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	for _, d := range dirs {
		if err != nil {
			return -1, err
		}
		next, oerr := openDirAt(fd, d)
		unix.Close(fd)
		fd, err = next, oerr
	}
	return fd, err
}

// openDirAt opens directory name in dfd without following a symlink.
func openDirAt(dfd int, name string) (int, error) {
	fd, err := unix.Openat(dfd, name, dirFlags, 0)
	return fd, linkErr(dfd, name, err)
}

// linkErr maps ENOTDIR to ELOOP when name is a symlink: with O_DIRECTORY and
// O_NOFOLLOW, Linux reports a link as "not a directory" rather than ELOOP.
func linkErr(dfd int, name string, err error) error {
	var st unix.Stat_t
	if err == unix.ENOTDIR && unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return unix.ELOOP
	}
	return err
}

// OpenFile opens rel like os.OpenFile, refusing symlinks on the whole path.
// New files get perm limited to owner bits. Unless flag has O_DIRECTORY,
// anything but a regular file is refused; it is opened non-blocking first so
// a planted FIFO cannot hang us before the check.
func (r *Root) OpenFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	dfd, name, err := r.resolve("open", rel)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	sysFlag := flag | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	fd, err := unix.Openat(dfd, name, sysFlag, uint32(perm.Perm()&0o700))
	if err != nil {
		return nil, r.fail("open", rel, linkErr(dfd, name, err))
	}
	var st unix.Stat_t
	if err = unix.Fstat(fd, &st); err == nil && flag&unix.O_DIRECTORY == 0 && st.Mode&unix.S_IFMT != unix.S_IFREG {
		err = errNotRegular
	}
	if err == nil {
		err = r.checkOwned(fd, rel, &st)
	}
	if err == nil && flag&unix.O_NONBLOCK == 0 {
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		unix.Close(fd)
		return nil, r.fail("open", rel, err)
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.path, rel)), nil
}

// Mkdir creates directory rel with mode 0700. An existing real directory is
// not an error; an existing symlink is.
func (r *Root) Mkdir(rel string) error {
	dfd, name, err := r.resolve("mkdir", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	return r.fail("mkdir", rel, mkdirAt(dfd, name))
}

// mkdirAt creates name 0700 in dfd, accepting an existing real directory.
func mkdirAt(dfd int, name string) error {
	err := unix.Mkdirat(dfd, name, 0o700)
	if err != unix.EEXIST {
		return err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return nil
	case unix.S_IFLNK:
		return unix.ELOOP
	}
	return unix.EEXIST
}

// MkdirAll creates rel and any missing parents, each 0700, descending through
// descriptors so no component is ever a followed symlink.
func (r *Root) MkdirAll(rel string) error {
	dirs, name, err := split(rel)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: rel, Err: err}
	}
	fd, err := r.openDir(nil)
	for _, d := range append(dirs, name) {
		if err != nil || d == "." {
			break
		}
		if err = mkdirAt(fd, d); err == nil {
			var next int
			next, err = openDirAt(fd, d)
			unix.Close(fd)
			fd = next
		}
	}
	if fd >= 0 {
		unix.Close(fd)
	}
	return r.fail("mkdir", rel, err)
}

// ReadFile returns the contents of regular file rel.
func (r *Root) ReadFile(rel string) ([]byte, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// WriteFileAtomic replaces rel with data so readers see the old or the new
// content, never a partial write: it writes a 0600 temp file in the same
// directory, fsyncs it, renames it over rel and fsyncs the directory.
// An existing symlink, non-regular file or file of another user at rel is
// refused rather than replaced, since its presence means something tampered
// with the directory.
func (r *Root) WriteFileAtomic(rel string, data []byte) error {
	return r.writeAtomic(rel, data, true)
}

// ReplaceFile is WriteFileAtomic without the fsyncs: readers and a killed
// process still see the old or the new content, but a power cut may lose
// the change. For frequent bookkeeping (spool checkpoints) whose loss only
// costs re-reading input.
func (r *Root) ReplaceFile(rel string, data []byte) error {
	return r.writeAtomic(rel, data, false)
}

func (r *Root) writeAtomic(rel string, data []byte, durable bool) error {
	const op = "write"
	dfd, name, err := r.resolve(op, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var st unix.Stat_t
	switch err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return r.fail(op, rel, ErrSymlink)
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return r.fail(op, rel, errNotRegular)
	case err == nil && int(st.Uid) != os.Getuid():
		return r.fail(op, rel, otherOwner(st.Uid))
	case err != nil && err != unix.ENOENT:
		return r.fail(op, rel, err)
	}
	// 130 random bits make the name unguessable; O_EXCL|O_NOFOLLOW refuse
	// anything planted there anyway.
	tmp := ".tmp-" + rand.Text()
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return r.fail(op, rel, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(r.path, tmp))
	err = f.Chmod(0o600) // exact mode regardless of umask
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, name)
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return r.fail(op, rel, err)
	}
	if !durable {
		return nil
	}
	return r.fail(op, rel, unix.Fsync(dfd))
}

// Stat describes rel without following symlinks; a symlink is an error.
func (r *Root) Stat(rel string) (os.FileInfo, error) {
	dfd, name, err := r.resolve("stat", rel)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	// An O_PATH|O_NOFOLLOW descriptor refers to the link itself, and works
	// for any file type without opening (or blocking on) it.
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, r.fail("stat", rel, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, r.fail("stat", rel, errors.Unwrap(err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, r.fail("stat", rel, ErrSymlink)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, r.fail("stat", rel, otherOwner(st.Uid))
	}
	return fi, nil
}

// ReadDirNames returns the sorted entry names of directory rel ("." for the root).
func (r *Root) ReadDirNames(rel string) ([]string, error) {
	f, err := r.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return names, err
}

// Remove deletes file or empty directory rel. A symlink at rel is removed
// itself, not followed.
func (r *Root) Remove(rel string) error {
	dfd, name, err := r.resolve("remove", rel)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if name == "." {
		return r.fail("remove", rel, fmt.Errorf("%w: cannot remove the root", fs.ErrInvalid))
	}
	err = unix.Unlinkat(dfd, name, 0)
	if err == unix.EISDIR {
		err = unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR)
	}
	return r.fail("remove", rel, err)
}

// RemoveAll deletes rel and everything below it. A missing rel is not an
// error; a symlink on the way to rel is.
func (r *Root) RemoveAll(rel string) error {
	dfd, name, err := r.resolve("removeall", rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer unix.Close(dfd)
	if name == "." {
		return r.fail("removeall", rel, fmt.Errorf("%w: cannot remove the root", fs.ErrInvalid))
	}
	return r.fail("removeall", rel, removeAllAt(dfd, name))
}

// removeAllAt deletes name in dfd. It only descends through O_NOFOLLOW
// directory descriptors, so a symlink anywhere in the tree is unlinked
// rather than traversed and its target is left alone.
func removeAllAt(dfd int, name string) error {
	err := unix.Unlinkat(dfd, name, 0)
	if err != unix.EISDIR {
		if err == unix.ENOENT {
			return nil
		}
		return err
	}
	fd, err := unix.Openat(dfd, name, dirFlags, 0)
	if err != nil {
		if err == unix.ENOENT {
			return nil
		}
		return err
	}
	dir := os.NewFile(uintptr(fd), name)
	names, err := dir.Readdirnames(-1)
	for _, n := range names {
		if rerr := removeAllAt(fd, n); err == nil {
			err = rerr
		}
	}
	dir.Close()
	if err != nil {
		return err
	}
	if err = unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR); err == unix.ENOENT {
		return nil
	}
	return err
}

// Truncate changes the size of regular file rel.
func (r *Root) Truncate(rel string, size int64) error {
	f, err := r.OpenFile(rel, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
