package gsf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/bitstream"
)

// Header flag bits. Bits 0x4, 0x8 and 0x20 and above have no meaning in the reference.
const (
	// FlagResponse marks a response to a request (only for service messages).
	FlagResponse = 1
	// FlagNotify marks a notify: a fire-and-forget message with no request id. A notify is never
	// a request or a response, even with FlagResponse set (flags 3 is the reply the reference
	// server builds for a notify).
	FlagNotify = 2
	// FlagDiscardable marks a message the receiver may drop.
	FlagDiscardable = 0x10
)

// AppCodeMultiple is the app code that adds the AppCodes list to a response header.
const AppCodeMultiple = AppMultErrs

// MaxAppCodes is the longest list of app codes a header may have when decoding. An entry
// takes 24 bytes of memory and can take as few as 12 bits on the wire: without a limit a list
// of empty entries would make a header allocate 16 times its length. With it a header
// allocates at most 96 KiB for the list, besides copies of its strings. (The reference
// server never decodes the list; its clients build it from a handful of errors.)
const MaxAppCodes = 4096

// Header is the GSF message header. Which fields are on the wire depends on the flags:
//
//	flags, svcClass, msgType      always
//	requestId                     service messages (flags&2 == 0)
//	logCorrelator                 requests (service, flags&1 == 0)
//	resultCode, appCode           responses (service, flags&1 != 0)
//	appString                     responses with appCode != 0 (negative codes included)
//	appCodes                      responses with appCode == 17 (MULT_ERRS): an int32 count,
//	                              then (int32 code, string) pairs; a nil list is written as 0
//
// Fields that the flags leave out are not written, and are zero after decoding.
type Header struct {
	Flags         int32          `json:"flags"`
	SvcClass      ServiceClass   `json:"svcClass"`
	MsgType       int32          `json:"msgType"`
	RequestID     int32          `json:"requestId"`
	LogCorrelator string         `json:"logCorrelator"`
	ResultCode    ResultCode     `json:"resultCode"`
	AppCode       AppCode        `json:"appCode"`
	AppString     string         `json:"appString"`
	AppCodes      []AppCodeEntry `json:"appCodes"`
}

// AppCodeEntry is one entry of a response header's list of app codes.
type AppCodeEntry struct {
	Code   AppCode `json:"code"`
	String string  `json:"string"`
}

// NewRequest returns the header of a request.
func NewRequest(class ServiceClass, msgType, requestID int32) Header {
	return Header{SvcClass: class, MsgType: msgType, RequestID: requestID}
}

// NewNotify returns the header of a notify (flags 2).
func NewNotify(class ServiceClass, msgType int32) Header {
	return Header{Flags: FlagNotify, SvcClass: class, MsgType: msgType}
}

// NewResponse returns the header of the response to req, as the reference builds it: the flags
// of req with FlagResponse set, and the same service class, message type, request id and log
// correlator (which a response does not write). The result and app codes are 0 (OK).
func NewResponse(req *Header) Header {
	return Header{
		Flags:         req.Flags | FlagResponse,
		SvcClass:      req.SvcClass,
		MsgType:       req.MsgType,
		RequestID:     req.RequestID,
		LogCorrelator: req.LogCorrelator,
	}
}

// IsService reports whether the message is part of a request/response pair (flags&2 == 0).
func (h *Header) IsService() bool { return h.Flags&FlagNotify == 0 }

// IsRequest reports whether the message is a request: a service message without FlagResponse.
func (h *Header) IsRequest() bool { return h.IsService() && h.Flags&FlagResponse == 0 }

// IsResponse reports whether the message is a response: a service message with FlagResponse.
func (h *Header) IsResponse() bool { return h.IsService() && h.Flags&FlagResponse != 0 }

// IsNotify reports whether the message is a notify (flags&2 != 0).
func (h *Header) IsNotify() bool { return h.Flags&FlagNotify != 0 }

// IsDiscardable reports whether FlagDiscardable is set.
func (h *Header) IsDiscardable() bool { return h.Flags&FlagDiscardable != 0 }

// SetResponse sets or clears FlagResponse. (The reference's SetResponse(false) cannot clear it.)
func (h *Header) SetResponse(response bool) {
	if response {
		h.Flags |= FlagResponse
	} else {
		h.Flags &^= FlagResponse
	}
}

// SetDiscardable sets or clears FlagDiscardable.
func (h *Header) SetDiscardable(discardable bool) {
	if discardable {
		h.Flags |= FlagDiscardable
	} else {
		h.Flags &^= FlagDiscardable
	}
}

// Kind returns "request", "response" or "notify", from the flags.
func (h *Header) Kind() string {
	switch {
	case h.IsNotify():
		return "notify"
	case h.IsResponse():
		return "response"
	}
	return "request"
}

// MessageTypeName returns the name of the header's message type within its service class, or
// "MessageType(n)".
func (h *Header) MessageTypeName() string {
	if name := MessageTypeName(h.SvcClass, h.MsgType); name != "" {
		return name
	}
	return fmt.Sprintf("MessageType(%d)", h.MsgType)
}

// String summarizes the header for logs, for example
// "request USER_SERVER/GET_CLIENT_VERSION_INFO id=1".
func (h *Header) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s/%s", h.Kind(), h.SvcClass, h.MessageTypeName())
	if h.IsService() {
		fmt.Fprintf(&b, " id=%d", h.RequestID)
	}
	if h.IsResponse() && (h.ResultCode != 0 || h.AppCode != 0) {
		fmt.Fprintf(&b, " result=%s app=%s", h.ResultCode, h.AppCode)
		if h.AppString != "" {
			fmt.Fprintf(&b, " %q", h.AppString)
		}
	}
	if h.IsDiscardable() {
		b.WriteString(" discardable")
	}
	return b.String()
}

// MarshalBits writes the header's fields (without the null bit of the header object), the ones
// the flags call for. It implements bitproto.Marshaler.
func (h *Header) MarshalBits(w *bitstream.Writer) error {
	w.WriteInt32(h.Flags)
	w.WriteInt32(int32(h.SvcClass))
	w.WriteInt32(h.MsgType)
	h.marshalRest(w)
	return nil
}

// marshalRest writes the fields after msgType (see MarshalBits).
func (h *Header) marshalRest(w *bitstream.Writer) {
	if h.IsService() {
		w.WriteInt32(h.RequestID)
		if h.Flags&FlagResponse == 0 {
			w.WriteString(h.LogCorrelator)
			return
		}
		w.WriteInt32(int32(h.ResultCode))
		w.WriteInt32(int32(h.AppCode))
		if h.AppCode != 0 {
			w.WriteString(h.AppString)
		}
		if h.AppCode == AppCodeMultiple {
			w.WriteInt32(int32(len(h.AppCodes)))
			for i := range h.AppCodes {
				w.WriteInt32(int32(h.AppCodes[i].Code))
				w.WriteString(h.AppCodes[i].String)
			}
		}
	}
}

// UnmarshalBits reads the header's fields, in both directions: unlike the reference, which
// reads only the fields of requests and notifies, it also reads the result fields of a
// response. It implements bitproto.Unmarshaler. Errors are *bitproto.DecodeError values whose Path
// names the header field.
func (h *Header) UnmarshalBits(r *bitstream.Reader) error {
	*h = Header{}
	var err error
	if h.Flags, err = r.ReadInt32(); err != nil {
		return headerErr("flags", err)
	}
	var v int32
	if v, err = r.ReadInt32(); err != nil {
		return headerErr("svcClass", err)
	}
	h.SvcClass = ServiceClass(v)
	if h.MsgType, err = r.ReadInt32(); err != nil {
		return headerErr("msgType", err)
	}
	if !h.IsService() {
		return nil
	}
	if h.RequestID, err = r.ReadInt32(); err != nil {
		return headerErr("requestId", err)
	}
	if h.Flags&FlagResponse == 0 {
		if h.LogCorrelator, err = r.ReadString(); err != nil {
			return headerErr("logCorrelator", err)
		}
		return nil
	}
	if v, err = r.ReadInt32(); err != nil {
		return headerErr("resultCode", err)
	}
	h.ResultCode = ResultCode(v)
	if v, err = r.ReadInt32(); err != nil {
		return headerErr("appCode", err)
	}
	h.AppCode = AppCode(v)
	if h.AppCode != 0 {
		if h.AppString, err = r.ReadString(); err != nil {
			return headerErr("appString", err)
		}
	}
	if h.AppCode != AppCodeMultiple {
		return nil
	}
	start := r.Offset()
	n, err := r.ReadInt32()
	if err != nil {
		return headerErr("appCodes", err)
	}
	// Every entry takes at least 12 bits: a 6-bit code and a 6-bit empty string.
	if left := r.Remaining(); n < 0 || int(n) > left/12 || n > MaxAppCodes {
		cause := fmt.Errorf("%w: %s of at least 12 bits, %s left", bitstream.ErrTooLong, pluralForm(int(n), "entry", "entries"), plural(left, "bit"))
		switch {
		case n < 0:
			cause = fmt.Errorf("%w: %d", bitstream.ErrNegativeLength, n)
		case n > MaxAppCodes:
			cause = fmt.Errorf("%w: %d entries, more than MaxAppCodes (%d)", bitstream.ErrTooLong, n, MaxAppCodes)
		}
		_ = r.Seek(start)
		return &bitproto.DecodeError{Path: "appCodes", Offset: int64(start / 8), BitOffset: int64(start), Err: cause}
	}
	if n > 0 {
		h.AppCodes = make([]AppCodeEntry, n)
	}
	for i := range h.AppCodes {
		e := &h.AppCodes[i]
		if v, err = r.ReadInt32(); err != nil {
			return headerErr(fmt.Sprintf("appCodes[%d].code", i), err)
		}
		e.Code = AppCode(v)
		if e.String, err = r.ReadString(); err != nil {
			return headerErr(fmt.Sprintf("appCodes[%d].string", i), err)
		}
	}
	return nil
}

func headerErr(field string, err error) error {
	var off int64
	var be *bitstream.DecodeError
	if errors.As(err, &be) {
		off = be.BitOffset
	}
	return &bitproto.DecodeError{Path: field, Offset: off / 8, BitOffset: off, Err: err}
}
