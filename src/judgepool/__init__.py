"""judgepool: retrieval evaluation against a fixed judged universe.

This module holds the version only, so that importing the package stays cheap.
"""

__version__ = "0.1.0"
