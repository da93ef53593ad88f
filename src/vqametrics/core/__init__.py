"""The bottom floor: errors, the signature, the toolkit pins and the extras guard."""
