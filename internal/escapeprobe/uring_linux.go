package main

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h), only what one
// IORING_OP_SOCKET needs: the kernel makes the socket itself, so a filter
// on socket(2) never sees it.
const (
	opSocket       = 45
	offSQRing      = 0
	offCQRing      = 0x8000000
	offSQEs        = 0x10000000
	enterGetEvents = 1
	sqeSize        = 64
	cqeSize        = 16
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// uringSocket makes a socket through io_uring and returns its descriptor.
func uringSocket(domain, typ, proto int) (int, error) {
	var p uringParams
	r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return -1, fmt.Errorf("io_uring_setup: %w", e)
	}
	ring := int(r)
	defer unix.Close(ring)
	sq, err := unix.Mmap(ring, offSQRing, int(p.sqOff.array+p.sqEntries*4), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap sq ring: %w", err)
	}
	defer unix.Munmap(sq)
	cq, err := unix.Mmap(ring, offCQRing, int(p.cqOff.cqes+p.cqEntries*cqeSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap cq ring: %w", err)
	}
	defer unix.Munmap(cq)
	sqes, err := unix.Mmap(ring, offSQEs, int(p.sqEntries*sqeSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return -1, fmt.Errorf("mmap sqes: %w", err)
	}
	defer unix.Munmap(sqes)
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }

	sqe := sqes[:sqeSize]
	clear(sqe)
	sqe[0] = opSocket
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(domain) // fd: the domain
	*(*uint64)(unsafe.Pointer(&sqe[8])) = uint64(typ)  // off: the type
	*(*uint32)(unsafe.Pointer(&sqe[24])) = uint32(proto)
	tail := atomic.LoadUint32(u32(sq, p.sqOff.tail))
	*u32(sq, p.sqOff.array+(tail&*u32(sq, p.sqOff.ringMask))*4) = 0
	atomic.StoreUint32(u32(sq, p.sqOff.tail), tail+1)

	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(ring), 1, 1, enterGetEvents, 0, 0); e != 0 {
		return -1, fmt.Errorf("io_uring_enter: %w", e)
	}
	head := atomic.LoadUint32(u32(cq, p.cqOff.head))
	if head == atomic.LoadUint32(u32(cq, p.cqOff.tail)) {
		return -1, fmt.Errorf("io_uring: no completion")
	}
	cqe := p.cqOff.cqes + (head&*u32(cq, p.cqOff.ringMask))*cqeSize
	res := *(*int32)(unsafe.Pointer(&cq[cqe+8]))
	atomic.StoreUint32(u32(cq, p.cqOff.head), head+1)
	if res < 0 {
		return -1, fmt.Errorf("IORING_OP_SOCKET: %w", unix.Errno(-res))
	}
	return int(res), nil
}
