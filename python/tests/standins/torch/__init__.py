"""Stand-in for the few torch names gymkit.adapters.verl touches (tests only; see ../README.md)."""

long = "int64"
float32 = "float32"


class Tensor:
    def __init__(self, data, dtype=None):
        self.data = data
        self.dtype = dtype

    def tolist(self):
        return self.data

    def __repr__(self):
        return f"standin.Tensor({self.data!r}, dtype={self.dtype})"


def tensor(data, dtype=None):
    return Tensor(data, dtype)
