package sidecar

// EmbedPrefixes returns what an embedding model of architecture arch (the
// GGUF's general.architecture) wants written before a search query and
// before a document to store. nomic-embed (nomic-bert, nomic-bert-moe) was
// trained with the task prefixes "search_query: " and "search_document: "
// and matches a query with documents poorly without them. The bert family
// (MiniLM, bge) needs none: bge's optional query instruction is left out,
// as its authors say retrieval works without it, and an instruction
// written for English would hurt its other languages.
func EmbedPrefixes(arch string) (query, document string) {
	switch arch {
	case "nomic-bert", "nomic-bert-moe":
		return "search_query: ", "search_document: "
	}
	return "", ""
}
