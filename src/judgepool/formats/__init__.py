"""Reading and writing the files judgepool exchanges: TREC runs and qrels, queries and documents."""
