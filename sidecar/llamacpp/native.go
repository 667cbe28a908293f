package llamacpp

// The few llama.cpp calls the llama package does not wrap, declared here
// and resolved at link time against the llama.cpp it compiles.

/*
#include <stdint.h>

struct llama_context;
struct llama_model;
struct llama_memory_i;
typedef void (*kws_log_callback)(int level, const char *text, void *user_data);
void llama_backend_init(void);
void llama_free(struct llama_context *ctx);
void llama_log_set(kws_log_callback callback, void *user_data);
void ggml_log_set(kws_log_callback callback, void *user_data);
extern void kwsLlamaLog(int level, char *text, void *user_data);
int llama_pooling_type(const struct llama_context *ctx);
struct llama_memory_i *llama_get_memory(const struct llama_context *ctx);
int32_t llama_model_n_ctx_train(const struct llama_model *model);
int ggml_cpu_has_sse3(void);
int ggml_cpu_has_ssse3(void);
int ggml_cpu_has_avx(void);
int ggml_cpu_has_avx_vnni(void);
int ggml_cpu_has_avx2(void);
int ggml_cpu_has_bmi2(void);
int ggml_cpu_has_f16c(void);
int ggml_cpu_has_fma(void);
int ggml_cpu_has_avx512(void);
int ggml_cpu_has_avx512_vbmi(void);
int ggml_cpu_has_avx512_vnni(void);
int ggml_cpu_has_avx512_bf16(void);
int ggml_cpu_has_amx_int8(void);
int ggml_cpu_has_neon(void);
int ggml_cpu_has_arm_fma(void);
int ggml_cpu_has_fp16_va(void);
int ggml_cpu_has_dotprod(void);
int ggml_cpu_has_matmul_int8(void);
int ggml_cpu_has_sve(void);
int ggml_cpu_has_sme(void);
*/
import "C"

import (
	"github.com/kwsdev/kws/sidecar/gguf"

	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/ollama/ollama/llama"

	"github.com/kwsdev/kws/sidecar"
)

// ggml's log levels (enum ggml_log_level).
const (
	logError    = 4
	logContinue = 5
)

// maxLogLines is how many error lines llamaLog keeps.
const maxLogLines = 8

// llamaLog keeps llama.cpp's and ggml's recent error lines, for the errors
// Load returns; the rest of their log (model and context details on every
// load) is dropped, as it would land on a terminal kws draws on.
var llamaLog struct {
	sync.Mutex
	lines   []string
	lastErr bool
}

func init() {
	C.llama_log_set(C.kws_log_callback(C.kwsLlamaLog), nil)
	C.ggml_log_set(C.kws_log_callback(C.kwsLlamaLog), nil)
}

//export kwsLlamaLog
func kwsLlamaLog(level C.int, text *C.char, _ unsafe.Pointer) {
	if level != logError && (level != logContinue || !llamaLog.lastErr) {
		llamaLog.Lock()
		llamaLog.lastErr = false
		llamaLog.Unlock()
		return
	}
	s := C.GoString(text)
	llamaLog.Lock()
	defer llamaLog.Unlock()
	if level == logContinue && len(llamaLog.lines) > 0 {
		llamaLog.lines[len(llamaLog.lines)-1] += s
	} else {
		llamaLog.lines = append(llamaLog.lines, s)
	}
	if len(llamaLog.lines) > maxLogLines {
		llamaLog.lines = llamaLog.lines[1:]
	}
	llamaLog.lastErr = true
}

// recentErrors returns the error lines logged since the last call, joined
// with "; ", and forgets them.
func recentErrors() string {
	llamaLog.Lock()
	defer llamaLog.Unlock()
	var out []string
	for _, l := range llamaLog.lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	llamaLog.lines = nil
	return strings.Join(out, "; ")
}

// loadError is the error of a failed load of path: sidecar.ErrBadModel
// with llama.cpp's logged reason, or err when it logged none.
func loadError(path string, err error) error {
	reason := recentErrors()
	if reason == "" {
		reason = err.Error()
	}
	return fmt.Errorf("%w: %s: %s", sidecar.ErrBadModel, path, reason)
}

// backendInit initialises llama.cpp once. The llama package's BackendInit
// would also look for GPU backend libraries next to an ollama binary and
// log the CPU features; kws runs on the CPU backend compiled in.
var backendInit = sync.OnceFunc(func() { C.llama_backend_init() })

// freeContext frees a llama.cpp context, which the llama package (v0.17.4)
// has no call for: its Context keeps the C pointer in its first field.
func freeContext(lc *llama.Context) {
	C.llama_free(cContext(lc))
}

// cContext is the C pointer of a llama package Context (v0.17.4), which
// keeps it in its first field.
func cContext(lc *llama.Context) *C.struct_llama_context {
	return *(**C.struct_llama_context)(unsafe.Pointer(lc))
}

// contextPooling is the pooling llama.cpp settled on for lc: the model's
// <arch>.pooling_type, or none when the GGUF names none.
func contextPooling(lc *llama.Context) gguf.Pooling {
	return gguf.Pooling(C.llama_pooling_type(cContext(lc)))
}

// hasCache says whether lc keeps a key/value cache between decodes; the
// encoders (the BERT family) have none and see each sequence whole.
func hasCache(lc *llama.Context) bool {
	return C.llama_get_memory(cContext(lc)) != nil
}

// trainContext is the model's training context, for an encoder the most
// positions it has embeddings or was trained for.
func trainContext(model *llama.Model) int {
	return int(C.llama_model_n_ctx_train(*(**C.struct_llama_model)(unsafe.Pointer(model))))
}

// Features are the CPU features llama.cpp was compiled for (ggml's
// ggml_cpu_has_* answer from the compiler's defines, not the CPU), in
// ggml's order; kws --version prints them.
func Features() []string {
	all := []struct {
		name string
		has  C.int
	}{
		{"SSE3", C.ggml_cpu_has_sse3()}, {"SSSE3", C.ggml_cpu_has_ssse3()},
		{"AVX", C.ggml_cpu_has_avx()}, {"AVX_VNNI", C.ggml_cpu_has_avx_vnni()},
		{"AVX2", C.ggml_cpu_has_avx2()}, {"BMI2", C.ggml_cpu_has_bmi2()},
		{"F16C", C.ggml_cpu_has_f16c()}, {"FMA", C.ggml_cpu_has_fma()},
		{"AVX512", C.ggml_cpu_has_avx512()}, {"AVX512_VBMI", C.ggml_cpu_has_avx512_vbmi()},
		{"AVX512_VNNI", C.ggml_cpu_has_avx512_vnni()}, {"AVX512_BF16", C.ggml_cpu_has_avx512_bf16()},
		{"AMX_INT8", C.ggml_cpu_has_amx_int8()},
		{"NEON", C.ggml_cpu_has_neon()}, {"ARM_FMA", C.ggml_cpu_has_arm_fma()},
		{"FP16_VA", C.ggml_cpu_has_fp16_va()}, {"DOTPROD", C.ggml_cpu_has_dotprod()},
		{"MATMUL_INT8", C.ggml_cpu_has_matmul_int8()}, {"SVE", C.ggml_cpu_has_sve()},
		{"SME", C.ggml_cpu_has_sme()},
	}
	var out []string
	for _, f := range all {
		if f.has != 0 {
			out = append(out, f.name)
		}
	}
	return out
}
