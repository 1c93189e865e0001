//go:build windows

package tools

import "golang.org/x/sys/windows"

func totalMemory() uint64 { return 0 }

func diskFree(dir string) uint64 {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0
	}
	var free, total, totalFree uint64
	if windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree) != nil {
		return 0
	}
	return free
}
