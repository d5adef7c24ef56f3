"""Stand-in for the ray calls NeMo RL makes on its NemoGym actor (tests only; see ../README.md).

Actors run in this process: ``.remote()`` calls the method at once and wraps its value as an object
reference; a ``num_returns="streaming"`` call returns an async iterator of awaitable references, as
``run_async_nemo_gym_rollout`` consumes it.
"""

import inspect


class ObjectRef:
    def __init__(self, value):
        self.value = value

    def __await__(self):
        if False:
            yield None
        return self.value


def get(ref):
    if isinstance(ref, list):
        return [get(r) for r in ref]
    return ref.value


class _StreamingGenerator:
    def __init__(self, agen):
        self._agen = agen

    def __aiter__(self):
        return self

    async def __anext__(self):
        return ObjectRef(await self._agen.__anext__())


class _Method:
    def __init__(self, bound, streaming=False):
        self._bound = bound
        self._streaming = streaming

    def options(self, num_returns=None, **_):
        return _Method(self._bound, streaming=num_returns == "streaming")

    def remote(self, *args, **kwargs):
        result = self._bound(*args, **kwargs)
        if inspect.isasyncgen(result):
            if not self._streaming:
                raise TypeError("a generator method must be called with .options(num_returns='streaming')")
            return _StreamingGenerator(result)
        return ObjectRef(result)


class ActorHandle:
    def __init__(self, instance):
        self._instance = instance

    def __getattr__(self, name):
        return _Method(getattr(self._instance, name))


class ActorClass:
    def __init__(self, cls, options):
        self._cls = cls
        self.actor_options = options

    def options(self, **options):
        return ActorClass(self._cls, {**self.actor_options, **options})

    def remote(self, *args, **kwargs):
        return ActorHandle(self._cls(*args, **kwargs))


def remote(*args, **options):
    if args and inspect.isclass(args[0]):
        return ActorClass(args[0], {})
    return lambda cls: ActorClass(cls, options)
