"""Stand-in for verl.protocol.DataProto (tests only): the three containers and len()."""


class DataProto:
    def __init__(self, batch=None, non_tensor_batch=None, meta_info=None):
        self.batch = batch or {}
        self.non_tensor_batch = non_tensor_batch or {}
        self.meta_info = meta_info or {}

    def __len__(self):
        if self.batch:
            return len(next(iter(self.batch.values())))
        if self.non_tensor_batch:
            return len(next(iter(self.non_tensor_batch.values())))
        return 0
