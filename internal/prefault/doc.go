// Package prefault maps a Sabline binary's code into its process at once,
// as the process starts, and the heap pages the rest of the start will
// take, rather than a page fault at a time as each is first touched. A
// command imports it for its effect alone:
//
//	import _ "github.com/sabline/sabline/internal/prefault"
//
// # Why
//
// Every process Sabline starts (the command, each worker, the doors, the
// store agent) runs code from a binary of 4 to 20 MB already in the page
// cache. On Linux the first touch of each 64 KB of it or so is a page
// fault, and on a virtual machine a fault is a trip through the
// hypervisor: 21 µs for each 64 KB on this project's machine
// (BenchmarkPageFault), where the kernel maps all of `sabline`'s 3.9 MB
// of code in 0.19 to 0.33 ms when asked for it at once, 0.2 to 0.35 µs a
// page. `sabline version` took 49 faults in its code; with the code
// mapped at start, 12. A fresh page of anonymous memory costs 11 µs a
// fault, and 0.7 µs when made present with others in one call; the heap
// pages made present ahead spare `sabline version` some 60 faults.
//
// # What it does
//
// On Linux (amd64, arm64), the package's initialisation reads the
// process's program headers where the kernel put them (the auxiliary
// vector's AT_PHDR), and asks the kernel with madvise(MADV_POPULATE_READ)
// to map each segment that is executable and not writable: the code,
// read-only, shared with every other process running the binary. It maps
// no memory of its own, writes nothing and changes no protection; the
// pages it maps are the file's, which the memory watch does not count
// (RssFile). It is a hint: where the kernel has no MADV_POPULATE_READ
// (before Linux 5.14) or a filter answers the call with an error, the
// process takes its faults as before, and nothing is said (Sabline's own
// filter allows madvise; a filter that killed a process for it would
// kill it at start). It holds nothing, so on other systems it does
// nothing. It trusts the auxiliary vector's AT_PHDR as the runtime trusts
// the rest of the vector, and maps nothing for headers without a PT_PHDR.
//
// Then it makes present, with madvise(MADV_POPULATE_WRITE), the pages of
// the heap the runtime hands out next: up to 384 KB above the highest
// page present (mincore(2)) in the heap chunk holding a new object, never
// past that chunk, which the runtime mapped whole, nor past the end of a
// huge page's reach (2 MB with pages of 4 KB), so that where transparent
// huge pages are always on, and the heap's pages are huge ones already,
// it maps no huge page of its own. Go 1.26 begins the heap at a random
// page of its first chunk, so a start whose heap began near the chunk's
// end has fewer pages ahead, or none. The pages are fresh zeros, as the
// runtime expects of memory it has not used, and are the process's own:
// a worker's memory watch counts them (RssAnon), as it would once the
// runtime used them, which a run's start does (the receipts' max_rss_kb
// of a hello is the same with and without, huge pages on request here).
//
// The package imports nothing but unsafe (it reads the runtime's
// auxiliary vector and calls the syscall package's system call entries,
// as golang.org/x/sys does), so that Go initialises it right after the
// runtime: in sabline and sabline-door before any package that allocates
// (in sabline-store after one package of its cloud drivers, whose path
// sorts first). The code and heap pages every other initialisation
// touches are then present before it runs.
package prefault
