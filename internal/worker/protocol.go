package worker

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// workRequest is Bazel's WorkRequest in the JSON form of the protocol:
// protobuf's JSON mapping, camel-case names, fields at their default
// left out (as Bazel's own printer writes them). inputs and verbosity
// are never sent.
type workRequest struct {
	Arguments []string `json:"arguments,omitempty"`
	RequestID int32    `json:"requestId,omitempty"`
	Cancel    bool     `json:"cancel,omitempty"`
}

// encode writes the request as one line: Bazel writes compact JSON
// values back to back, which a streaming reader takes either way, and
// the newline serves workers that read a line at a time.
func (r *workRequest) encode() []byte {
	b, err := json.Marshal(r)
	if err != nil { // strings and integers only
		panic("worker: " + err.Error())
	}
	return append(b, '\n')
}

// workResponse is Bazel's WorkResponse. As the protocol asks, unknown
// fields are ignored and a missing field has its protobuf default (0,
// "", false). The protobuf field names (exit_code) are read too, as
// protobuf's JSON parsers do.
type workResponse struct {
	ExitCode     int32JSON `json:"exitCode"`
	Output       string    `json:"output"`
	RequestID    int32JSON `json:"requestId"`
	WasCancelled bool      `json:"wasCancelled"`

	ExitCodeSnake     *int32JSON `json:"exit_code"`
	RequestIDSnake    *int32JSON `json:"request_id"`
	WasCancelledSnake *bool      `json:"was_cancelled"`
}

// normalize folds the protobuf field names into the JSON ones.
func (r *workResponse) normalize() {
	if r.ExitCodeSnake != nil {
		r.ExitCode = *r.ExitCodeSnake
	}
	if r.RequestIDSnake != nil {
		r.RequestID = *r.RequestIDSnake
	}
	if r.WasCancelledSnake != nil {
		r.WasCancelled = *r.WasCancelledSnake
	}
}

// int32JSON is an int32 as protobuf's JSON mapping writes it: a number,
// or a decimal string.
type int32JSON int32

func (n *int32JSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return fmt.Errorf("%s is not a 32-bit integer", b)
	}
	*n = int32JSON(v)
	return nil
}
