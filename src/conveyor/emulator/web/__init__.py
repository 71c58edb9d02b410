"""The forge's pages for people: the index, an issue's and a pull request's own pages,
the pipeline page, their shared frame, and markdown rendered safely.
"""
