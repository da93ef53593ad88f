"""Views of a result: text tables, the official output files, and the HTML report."""
