"""The benchmark shipped with neocoder, as ``neocoder.codeforces`` (pyproject.toml maps this
folder into the package): the validated NeoCoder dataset, the human technique sets, the
recorded GPT-4 replies, their manifest and NOTICE, and the paper's published figures.
``neocoder.dataset.shipped`` reads them; README.md says what each file holds and how it is rebuilt.
"""
