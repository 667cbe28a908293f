// Package llamacpp is a placeholder while the cold build is measured.
package llamacpp

import _ "github.com/ollama/ollama/llama"
