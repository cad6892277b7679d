package cache

import "runtime"

// recordChunk holds historyChunk records. Its array lives outside the Go
// heap where the system allows (records_unix.go): a pod holds about a
// hundred megabytes of them for its whole life, pointer-free, and counted
// in the heap they would double it, since the garbage collector lets the
// heap grow to twice what is live before it collects. The array is
// returned to the system once the chunk is unreachable: readers hold the
// chunk (through a HistoryView) while they read its records.
type recordChunk struct {
	recs *[historyChunk]historyRecord
}

func newRecordChunk() *recordChunk {
	recs, free := allocRecords()
	c := &recordChunk{recs: recs}
	if free != nil {
		runtime.AddCleanup(c, func(f func()) { f() }, free)
	}
	return c
}
