//go:build unix

package cache

import (
	"syscall"
	"unsafe"
)

// allocRecords maps zeroed anonymous memory for a chunk's records, and
// returns how to unmap it. Where mapping fails it falls back to the heap.
func allocRecords() (*[historyChunk]historyRecord, func()) {
	size := int(unsafe.Sizeof([historyChunk]historyRecord{}))
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return new([historyChunk]historyRecord), nil
	}
	return (*[historyChunk]historyRecord)(unsafe.Pointer(unsafe.SliceData(mem))), func() { _ = syscall.Munmap(mem) }
}
