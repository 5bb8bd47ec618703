"""Text: words from text (tokenizers, stop words, fuzzy bounds). Knows no files and no scoring."""
