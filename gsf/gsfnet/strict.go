package gsfnet

import (
	"context"
	"fmt"

	"github.com/gamewire/gamewire/bitproto"
	"github.com/gamewire/gamewire/gsf"
)

// TypedStrict is Typed with a strict decode (gsf.RawBody.DecodeStrict, with the server's
// DecodeMode): a request whose body leaves bits over after Req, or reads past the payload,
// is answered like a malformed one (result SERIALIZE, app code INPUT) and f is not called. It
// catches clients that send a body of another layout under a message type, which Typed, like
// the reference, lets through.
func TypedStrict[Req, Resp any](f func(ctx context.Context, s *Session, req *Req) (*Resp, error)) Handler {
	return HandlerFunc(func(ctx context.Context, r *Request) (any, error) {
		req := new(Req)
		var opts bitproto.DecodeMode
		if r.Session != nil {
			opts = r.Session.srv.DecodeMode // the server's limits, as Typed
		}
		if err := r.Body.DecodeStrict(opts, req); err != nil {
			return nil, &Error{ResultCode: gsf.ResultSerialize, AppCode: gsf.AppInput,
				AppString: "malformed request body", Err: fmt.Errorf("%w: %s/%s: %w", ErrBadBody, r.Header.SvcClass, r.Header.MessageTypeName(), err)}
		}
		resp, err := f(ctx, r.Session, req)
		if resp == nil {
			return nil, err
		}
		return resp, err
	})
}

// HandleStrict registers a TypedStrict handler on m.
func HandleStrict[Req, Resp any](m *Mux, class gsf.ServiceClass, msgType int32, f func(ctx context.Context, s *Session, req *Req) (*Resp, error)) {
	m.Handle(class, msgType, TypedStrict(f))
}
