package escape

// Prelude is put before every target's program. It defines:
//
//	report(r, extra="")  prints the RESULT line of a raw call's struct(ret, errno)
//	le(n, size)          n as size bytes, least significant first
//	inet(port)           struct sockaddr_in for 127.0.0.1:port
//	unix_path(path)      struct sockaddr_un for a path; its length is 3 + len(path)
//	unix_abstract(name)  struct sockaddr_un for an abstract name; its length is 3 + len(name)
//
// Raw calls take a string or bytes argument as a pointer to a
// NUL-terminated copy, so a structure is built as bytes and its length
// passed beside it.
const Prelude = `# The escape checks' prelude.
def report(r, extra = ""):
    head = "RESULT errno=" + r.errno if r.errno else "RESULT ok"
    print(("%s ret=%d %s" % (head, r.ret, extra)).strip())

def le(n, size):
    return bytes([(n >> (8 * i)) & 255 for i in range(size)])

def inet(port):
    return le(2, 2) + bytes([port >> 8, port & 255, 127, 0, 0, 1]) + le(0, 8)

def unix_path(path):
    return le(1, 2) + bytes(path)

def unix_abstract(name):
    return le(1, 2) + le(0, 1) + bytes(name)

`

// Missing is a path that must not exist ($MISSING in the catalogue): raw
// calls that would act on a path name one beneath it, so that they fail
// before they act. The harness refuses to run when it exists.
const Missing = "/nonexistent-sabline-escape"
