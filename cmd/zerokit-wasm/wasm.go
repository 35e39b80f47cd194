//go:build js && wasm

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"syscall/js"
)

// In the browser the module answers the page's requests through
// zerokitRequest(method, path, body) -> Promise<{status, body}>; under
// Node, "-bench [sims [searches]]" measures the search instead.
func main() {
	if len(os.Args) > 1 && os.Args[1] == "-bench" {
		sims, searches := 200, 20
		if len(os.Args) > 2 {
			sims, _ = strconv.Atoi(os.Args[2])
		}
		if len(os.Args) > 3 {
			searches, _ = strconv.Atoi(os.Args[3])
		}
		if err := bench(os.Stdout, sims, searches); err != nil {
			fmt.Fprintln(os.Stderr, "zerokit-wasm:", err)
			os.Exit(1)
		}
		return
	}
	srv, err := newServer(&networks{})
	if err != nil {
		js.Global().Get("console").Call("error", "zerokit: "+err.Error())
		return
	}
	js.Global().Set("zerokitRequest", js.FuncOf(func(this js.Value, args []js.Value) any {
		method, path := args[0].String(), args[1].String()
		var body []byte
		if len(args) > 2 && args[2].Type() == js.TypeObject {
			body = make([]byte, args[2].Get("length").Int())
			js.CopyBytesToGo(body, args[2])
		}
		return js.Global().Get("Promise").New(js.FuncOf(func(this js.Value, p []js.Value) any {
			resolve := p[0]
			go func() {
				w := &recorder{header: http.Header{}, status: http.StatusOK}
				req, err := http.NewRequest(method, path, bytes.NewReader(body))
				if err != nil {
					resolve.Invoke(map[string]any{"status": 400, "body": fmt.Sprintf(`{"error": %q}`, err.Error())})
					return
				}
				srv.ServeHTTP(w, req)
				resolve.Invoke(map[string]any{"status": w.status, "body": w.body.String(), "type": w.header.Get("Content-Type")})
			}()
			return nil
		}))
	}))
	select {}
}

// recorder is the http.ResponseWriter of one request.
type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}
