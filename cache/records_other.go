//go:build !unix

package cache

// allocRecords allocates a chunk's records on the heap.
func allocRecords() (*[historyChunk]historyRecord, func()) {
	return new([historyChunk]historyRecord), nil
}
