package reach

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// nlMessage is a netlink message: its header (type typ, flags, for the
// question seq), data, and the padding to its alignment, which nlmsg_len
// does not count (the kernel's data, padded attributes, needs none).
func nlMessage(typ, flags uint16, seq uint32, data []byte) []byte {
	n := unix.NLMSG_HDRLEN + len(data)
	m := make([]byte, unix.NLMSG_HDRLEN, (n+unix.NLMSG_ALIGNTO-1)&^(unix.NLMSG_ALIGNTO-1))
	ne := binary.NativeEndian
	ne.PutUint32(m[0:], uint32(n))
	ne.PutUint16(m[4:], typ)
	ne.PutUint16(m[6:], flags)
	ne.PutUint32(m[8:], seq)
	m = append(m, data...)
	return m[:cap(m)]
}

// rtAttr is a route attribute of type typ holding v, padded.
func rtAttr(typ uint16, v []byte) []byte {
	n := unix.SizeofRtAttr + len(v)
	a := make([]byte, (n+unix.RTA_ALIGNTO-1)&^(unix.RTA_ALIGNTO-1))
	binary.NativeEndian.PutUint16(a[0:], uint16(n))
	binary.NativeEndian.PutUint16(a[2:], typ)
	copy(a[unix.SizeofRtAttr:], v)
	return a
}

// errorAnswer is the kernel's NLMSG_ERROR answer to the question seq: e
// as the kernel writes it (-errno), the question's header after it (a
// question of its header alone), and attrs, the reasons it gave
// (NLM_F_ACK_TLVS in flags).
func errorAnswer(seq uint32, e int32, flags uint16, attrs []byte) []byte {
	data := binary.NativeEndian.AppendUint32(nil, uint32(e))
	data = append(data, nlMessage(unix.RTM_GETROUTE, unix.NLM_F_REQUEST, seq, nil)...)
	return nlMessage(unix.NLMSG_ERROR, flags, seq, append(data, attrs...))
}

// routeAnswerOf is the kernel's RTM_NEWROUTE answer to the question seq:
// a route of type typ to 198.51.100.9 in the main table, its preferred
// source pref where pref is not nil.
func routeAnswerOf(seq uint32, typ byte, pref []byte) []byte {
	rtm := []byte{unix.AF_INET, 32, 0, 0, unix.RT_TABLE_MAIN, unix.RTPROT_UNSPEC,
		unix.RT_SCOPE_UNIVERSE, typ, 0, 0, 0, 0}
	data := append(rtm, rtAttr(unix.RTA_TABLE, []byte{unix.RT_TABLE_MAIN, 0, 0, 0})...)
	data = append(data, rtAttr(unix.RTA_DST, []byte{198, 51, 100, 9})...)
	if pref != nil {
		data = append(data, rtAttr(unix.RTA_PREFSRC, pref)...)
	}
	return nlMessage(unix.RTM_NEWROUTE, 0, seq, data)
}

// errno is the errno e as the kernel writes it in an error answer.
func errno(e unix.Errno) int32 { return -int32(e) }

// TestRouteAnswer: routeAnswer reads an error answer as no route only
// where its errno is one a route lookup answers for no route, an
// unreachable, a prohibit or a blackhole route, and the kernel gave no
// reason of its own (which it gives for a question it could not read,
// EINVAL among them); every other errno is a question the kernel refused
// and an error, as are an acknowledgement (0), an errno not negative,
// and an answer cut short. A route's type says whether it delivers here.
func TestRouteAnswer(t *testing.T) {
	const seq = 7
	v4, v6 := []byte{203, 0, 113, 5}, netip.MustParseAddr("2606:4700:10::5").AsSlice()
	mapped := netip.MustParseAddr("::ffff:203.0.113.5").AsSlice()
	reason := rtAttr(unix.NLMSGERR_ATTR_MSG,
		[]byte("ipv4: Invalid header for route get request\x00"))
	route := routeAnswerOf(seq, unix.RTN_UNICAST, v4)
	tests := []struct {
		name      string
		answer    []byte
		wantHere  bool
		wantPref  string // "" for none
		wantErr   string // "" for none
		wantErrno unix.Errno
	}{
		{name: "no route (ENETUNREACH)", answer: errorAnswer(seq, errno(unix.ENETUNREACH), 0, nil)},
		{name: "an unreachable route (EHOSTUNREACH)",
			answer: errorAnswer(seq, errno(unix.EHOSTUNREACH), 0, nil)},
		{name: "a prohibit route (EACCES)", answer: errorAnswer(seq, errno(unix.EACCES), 0, nil)},
		{name: "a blackhole route (EINVAL)", answer: errorAnswer(seq, errno(unix.EINVAL), 0, nil)},
		{name: "a question not read (EINVAL with the kernel's reason)",
			answer:  errorAnswer(seq, errno(unix.EINVAL), unix.NLM_F_ACK_TLVS, reason),
			wantErr: "refused the route question (ipv4: Invalid header", wantErrno: unix.EINVAL},
		{name: "a reason with the question left out (NLM_F_CAPPED)",
			answer: nlMessage(unix.NLMSG_ERROR, unix.NLM_F_ACK_TLVS|unix.NLM_F_CAPPED, seq,
				slices.Concat(binary.NativeEndian.AppendUint32(nil, uint32(errno(unix.EINVAL))),
					nlMessage(unix.RTM_GETROUTE, 0, seq, nil)[:unix.NLMSG_HDRLEN], reason)),
			wantErr: "(ipv4: Invalid header", wantErrno: unix.EINVAL},
		{name: "no route with a reason given",
			answer:  errorAnswer(seq, errno(unix.ENETUNREACH), unix.NLM_F_ACK_TLVS, reason),
			wantErr: "refused the route question", wantErrno: unix.ENETUNREACH},
		{name: "not supported (EOPNOTSUPP)",
			answer:  errorAnswer(seq, errno(unix.EOPNOTSUPP), 0, nil),
			wantErr: "refused the route question", wantErrno: unix.EOPNOTSUPP},
		{name: "not permitted (EPERM)", answer: errorAnswer(seq, errno(unix.EPERM), 0, nil),
			wantErr: "refused the route question", wantErrno: unix.EPERM},
		{name: "no buffer (ENOBUFS)", answer: errorAnswer(seq, errno(unix.ENOBUFS), 0, nil),
			wantErr: "refused the route question", wantErrno: unix.ENOBUFS},
		{name: "out of range (ERANGE)", answer: errorAnswer(seq, errno(unix.ERANGE), 0, nil),
			wantErr: "refused the route question", wantErrno: unix.ERANGE},
		{name: "an acknowledgement (0)", answer: errorAnswer(seq, 0, 0, nil),
			wantErr: "acknowledged, not answered"},
		{name: "an errno not negative", answer: errorAnswer(seq, int32(unix.ENETUNREACH), 0, nil),
			wantErr: "not a negative errno"},
		{name: "an error answer cut short",
			answer:  nlMessage(unix.NLMSG_ERROR, 0, seq, []byte{0x9b, 0xff, 0xff}),
			wantErr: "shorter than its header"},
		{name: "a message longer than the datagram", answer: route[:len(route)-4],
			wantErr: "a message of"},
		{name: "bytes after the answer's message, short of a header",
			answer:  append(nlMessage(unix.NLMSG_NOOP, 0, seq+1, nil), 1, 2, 3),
			wantErr: "short of a header"},
		{name: "a unicast route", answer: route, wantPref: "203.0.113.5"},
		{name: "a unicast route with an IPv6 source",
			answer: routeAnswerOf(seq, unix.RTN_UNICAST, v6), wantPref: "2606:4700:10::5"},
		{name: "a source in its IPv4-mapped form",
			answer: routeAnswerOf(seq, unix.RTN_UNICAST, mapped), wantPref: "203.0.113.5"},
		{name: "a route that names no source", answer: routeAnswerOf(seq, unix.RTN_UNICAST, nil)},
		{name: "a local route", answer: routeAnswerOf(seq, unix.RTN_LOCAL, v4), wantHere: true,
			wantPref: "203.0.113.5"},
		{name: "a broadcast route", answer: routeAnswerOf(seq, unix.RTN_BROADCAST, v4),
			wantHere: true, wantPref: "203.0.113.5"},
		{name: "an anycast route", answer: routeAnswerOf(seq, unix.RTN_ANYCAST, v6),
			wantHere: true, wantPref: "2606:4700:10::5"},
		{name: "a multicast route", answer: routeAnswerOf(seq, unix.RTN_MULTICAST, nil),
			wantHere: true},
		{name: "a blackhole route as a route", answer: routeAnswerOf(seq, unix.RTN_BLACKHOLE, nil)},
		{name: "a route shorter than its header",
			answer:  nlMessage(unix.RTM_NEWROUTE, 0, seq, make([]byte, unix.SizeofRtMsg-1)),
			wantErr: "shorter than its header"},
		{name: "a route's attribute past its end",
			answer: nlMessage(unix.RTM_NEWROUTE, 0, seq, append(make([]byte, unix.SizeofRtMsg),
				8, 0, unix.RTA_PREFSRC, 0, 203, 0)),
			wantErr: "a route's attribute of 8 bytes in 6"},
		{name: "bytes after a route's last attribute, short of one",
			answer: nlMessage(unix.RTM_NEWROUTE, 0, seq, append(make([]byte, unix.SizeofRtMsg),
				1, 2)),
			wantErr: "after a route's last attribute"},
		{name: "an answer to another question", answer: errorAnswer(seq-1, 0, 0, nil),
			wantErr: errUnanswered.Error()},
		{name: "an answer to another question, then this one's",
			answer: slices.Concat(routeAnswerOf(seq-1, unix.RTN_LOCAL, nil),
				errorAnswer(seq, errno(unix.EOPNOTSUPP), 0, nil)),
			wantErr: "refused the route question", wantErrno: unix.EOPNOTSUPP},
		{name: "a NLMSG_NOOP, then the answer",
			answer: slices.Concat(nlMessage(unix.NLMSG_NOOP, 0, seq, nil),
				routeAnswerOf(seq, unix.RTN_LOCAL, nil)), wantHere: true},
		{name: "NLMSG_DONE for the question", answer: nlMessage(unix.NLMSG_DONE, 0, seq, nil),
			wantErr: "a message of type 3 answered"},
		{name: "another route message for the question",
			answer:  nlMessage(unix.RTM_DELROUTE, 0, seq, make([]byte, unix.SizeofRtMsg)),
			wantErr: "a message of type 25 answered"},
		{name: "an empty datagram", answer: nil, wantErr: errUnanswered.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			here, pref, err := routeAnswer(tt.answer, seq)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("routeAnswer = %v; want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("routeAnswer = %v, %v, %v; want an error saying %q", here, pref, err,
					tt.wantErr)
			case tt.wantErrno != 0 && !errors.Is(err, tt.wantErrno):
				t.Fatalf("routeAnswer = %v; want it to wrap %v", err, tt.wantErrno)
			}
			if err != nil && (here || pref.IsValid()) {
				t.Errorf("routeAnswer = %v, %v with its error %v; want nothing beside it", here,
					pref, err)
			}
			if here != tt.wantHere {
				t.Errorf("here = %v; want %v", here, tt.wantHere)
			}
			if got := addrString(pref); got != tt.wantPref {
				t.Errorf("pref = %q; want %q", got, tt.wantPref)
			}
		})
	}
}

// addrString is a's text, "" where a is invalid.
func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// FuzzRouteAnswer: routeAnswer reads the bytes the kernel wrote to the
// netlink socket in answer to the route question. Whatever the bytes, it
// returns; an error answer built from the fuzzed
// errno and flags is no route exactly where the errno is one of
// noRouteErrors with no reason given, and an error otherwise; a route
// built from the fuzzed type and source delivers here exactly where its
// type is one of routedHereTypes, and its source reads back (unmapped)
// where it is an address; no message cut short is an answer; and what
// follows the message that answers is not read, nor is a message for
// another question before it.
func FuzzRouteAnswer(f *testing.F) {
	v4 := []byte{203, 0, 113, 5}
	f.Add(errorAnswer(1, errno(unix.ENETUNREACH), 0, nil), uint32(1), errno(unix.EINVAL),
		uint16(0), byte(unix.RTN_UNICAST), v4)
	f.Add(errorAnswer(1, errno(unix.EINVAL), unix.NLM_F_ACK_TLVS,
		rtAttr(unix.NLMSGERR_ATTR_MSG, []byte("ipv4: Unsupported attribute\x00"))), uint32(1),
		errno(unix.EOPNOTSUPP), uint16(unix.NLM_F_ACK_TLVS), byte(unix.RTN_LOCAL), v4)
	f.Add(routeAnswerOf(2, unix.RTN_LOCAL, v4), uint32(2), int32(0), uint16(unix.NLM_F_CAPPED),
		byte(unix.RTN_BROADCAST), netip.MustParseAddr("2606:4700:10::5").AsSlice())
	f.Add(slices.Concat(nlMessage(unix.NLMSG_NOOP, 0, 3, nil), routeAnswerOf(3,
		unix.RTN_UNICAST, nil)), uint32(3), errno(unix.EPERM), uint16(0), byte(0), []byte{1})
	f.Add([]byte{20, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0x9b, 0xff, 0xff, 0xff},
		uint32(1), int32(-1<<31), uint16(0xffff), byte(0xff), []byte(nil))
	f.Fuzz(func(t *testing.T, data []byte, seq uint32, e int32, flags uint16, typ byte,
		src []byte) {
		// Bytes as they come: an answer read is the same with a message
		// for another question before it and any bytes after; an error
		// stays one with that message before it.
		here, pref, err := routeAnswer(data, seq)
		other := nlMessage(unix.NLMSG_NOOP, 0, seq+1, nil)
		switch {
		case err == nil:
			h2, p2, err2 := routeAnswer(slices.Concat(other, data, []byte{0xde, 0xad}), seq)
			if h2 != here || p2 != pref || err2 != nil {
				t.Fatalf("%x: read (%v, %v), and (%v, %v, %v) with another question's "+
					"message before and bytes after", data, here, pref, h2, p2, err2)
			}
		case err != errUnanswered:
			if _, _, err2 := routeAnswer(slices.Concat(other, data), seq); err2 == nil {
				t.Fatalf("%x: read as %v, and as an answer with another question's message "+
					"before", data, err)
			}
			if here || pref.IsValid() {
				t.Fatalf("%x: read (%v, %v) with its error %v", data, here, pref, err)
			}
		}

		// An error answer.
		msg := errorAnswer(seq, e, flags, data)
		_, _, err = routeAnswer(msg, seq)
		none := e < 0 && flags&unix.NLM_F_ACK_TLVS == 0 &&
			slices.Contains(noRouteErrors, unix.Errno(-int64(e)))
		if none != (err == nil) {
			t.Fatalf("errno %d, flags %#x: read with error %v; want no route %v", -int64(e),
				flags, err, none)
		}
		if err != nil && e < 0 && !errors.Is(err, unix.Errno(-int64(e))) {
			t.Fatalf("errno %d: the error %v does not wrap it", -int64(e), err)
		}
		cuts(t, msg, seq)

		// A route.
		src = src[:min(len(src), 64)]
		msg = routeAnswerOf(seq, typ, src)
		here, pref, err = routeAnswer(msg, seq)
		want, _ := netip.AddrFromSlice(src)
		if err != nil || here != slices.Contains(routedHereTypes, typ) || pref != want.Unmap() {
			t.Fatalf("a route of type %d, source %x: read (%v, %v, %v)", typ, src, here, pref,
				err)
		}
		cuts(t, msg, seq)
	})
}

// cuts fails unless every cut of the answer msg to the question seq short
// of its length (nlmsg_len) is read as an error: none is taken as no
// route or a route.
func cuts(t *testing.T, msg []byte, seq uint32) {
	t.Helper()
	for cut := 1; cut < int(binary.NativeEndian.Uint32(msg)); cut++ {
		if here, pref, err := routeAnswer(msg[:cut], seq); err == nil {
			t.Fatalf("%x cut to %d bytes: read (%v, %v) with no error", msg, cut, here, pref)
		}
	}
}
