package reproduce

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// parents maps every process to its parent, read from /proc.
func parents() map[int]int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make(map[int]int, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			out[pid] = ppid
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/<pid>/stat (the fourth
// field, after the command name in parentheses, which may hold anything).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// descendants lists every process below root, parents before children.
func descendants(root int) []int {
	kids := map[int][]int{}
	for pid, ppid := range parents() {
		kids[ppid] = append(kids[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range kids[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// signalTree sends sig to every process below root and returns how many it
// reached. A pid read from /proc may be reused before the signal is sent,
// so each process is first pinned with a pidfd and its parent checked
// again: only a process still below root is signalled.
func signalTree(root int, sig syscall.Signal) int {
	tree := descendants(root)
	in := map[int]bool{root: true}
	for _, p := range tree {
		in[p] = true
	}
	n := 0
	for _, pid := range tree {
		if signalPinned(pid, sig, in) {
			n++
		}
	}
	return n
}

func signalPinned(pid int, sig syscall.Signal, tree map[int]bool) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ENOSYS) {
		// Kernels before 5.3: the parent check just before kill is the
		// best there is.
		if ppid, ok := parentOf(pid); ok && tree[ppid] {
			return syscall.Kill(pid, sig) == nil
		}
		return false
	}
	if err != nil {
		return false // gone already
	}
	defer unix.Close(fd)
	if ppid, ok := parentOf(pid); !ok || !tree[ppid] {
		return false // the pid now names a process outside the tree
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0) == nil
}
