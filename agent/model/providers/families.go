package providers

// Families are the context windows of open-weight model families, which
// local servers (Ollama, llama.cpp, vLLM, LM Studio) and routers serve
// under these names: the figure is the model's, and a server may run it
// with less (Ollama's default is smaller), which asking the server finds.
var Families = []Window{
	{"qwen2.5-coder", 32768},
	{"qwen3", 32768},
	{"qwen", 32768},
	{"llama3.1", 131072},
	{"llama3.2", 131072},
	{"llama3.3", 131072},
	{"llama3", 8192},
	{"codellama", 16384},
	{"phi", 16384},
	{"gemma", 8192},
}

// FamilyVision are model-name prefixes of open-weight families that take images.
var FamilyVision = []string{
	"llava", "bakllava", "llama3.2-vision", "llama4", "qwen2.5vl", "qwen2.5-vl", "qwen2-vl", "qwen-vl",
	"gemma3", "minicpm-v", "moondream",
}
