"""Reading and writing the files judgepool exchanges: TREC runs and qrels, queries and documents.

- `source`: an input file's bytes (plain or gzip, a file or a stream), for every reader;
- `trec`: TREC runs and qrels, line by line (the reference reader); `fast_run`: runs
  read into columns, fast, accepting exactly what `trec` accepts;
- `ids`: the ID grammar as the readers apply it; `id_list`: a file of query IDs;
  `item_list`: a file of (query, document) items;
- `tables`: queries and documents from TSV or JSONL; `guidelines`: a team's
  guidelines (Markdown);
- `spreadsheet_cells`: text cells made inert for TSV and CSV output;
- `sample_file`: a sample of the holes, as ``holes --sample`` writes it.
"""
