from .parallel import ParallelAgent
from .sequential import SequentialAgent
