package lab

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// systemMemory offers take MemAvailable from /proc/meminfo and the
// headroom under RLIMIT_AS: the limit less the address space the process
// already maps (VmSize).
func systemMemory(take func(b uint64, src string)) {
	if kb, ok := procField("/proc/meminfo", "MemAvailable:"); ok {
		take(kb*1024, "MemAvailable")
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) || rl.Cur == 0 {
		return
	}
	used, ok := procField("/proc/self/status", "VmSize:")
	used *= 1024
	if !ok || used >= rl.Cur {
		take(0, "address-space limit")
		return
	}
	// The Go runtime maps a little more than the slices it is asked for
	// (heap metadata, rounding to arenas): keep an eighth aside.
	take((rl.Cur-used)/8*7, "address-space limit")
}

// procField returns the number after key in a /proc file, in its unit.
func procField(path, key string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == key {
			v, err := strconv.ParseUint(string(f[1]), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
