from .agent_loop import AgentLoopManager, AgentLoopWorker

__all__ = ["AgentLoopManager", "AgentLoopWorker"]
