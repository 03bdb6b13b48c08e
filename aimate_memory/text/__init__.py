"""Text utilities every layer may use (the bottom layer, beside `errors`): which script a text is written in
(`scripts`), its words and CJK bigrams (`words`), stopwords as data (`stopwords`, `data/*.txt`), and token
estimates each named for what they count (`estimate`). Nothing here knows about memories, indexes or models."""
