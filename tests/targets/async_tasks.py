"""Three named asyncio tasks with known call chains, awaited by the main task through
gather(), for --async-aware:

  alpha: alpha_outer -> alpha_inner -> burn
  beta:  beta_outer -> beta_middle -> beta_leaf -> burn
  gamma: gamma_work -> burn

Each burns CPU in short slices and yields to the loop in between, so one of them is
almost always the running task. READY comes once every task has run a slice.

READY json: {"tasks": {"alpha": [...], ...}} (each chain root first, without burn)
"""
import asyncio
import time

from _ready import ready

started = set()


def burn(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def slices(name):
    while True:
        burn(0.002)
        started.add(name)
        await asyncio.sleep(0)


async def alpha_inner():
    await slices("alpha")


async def alpha_outer():
    await alpha_inner()


async def beta_leaf():
    await slices("beta")


async def beta_middle():
    await beta_leaf()


async def beta_outer():
    await beta_middle()


async def gamma_work():
    await slices("gamma")


CHAINS = {
    "alpha": ["alpha_outer", "alpha_inner", "slices"],
    "beta": ["beta_outer", "beta_middle", "beta_leaf", "slices"],
    "gamma": ["gamma_work", "slices"],
}


async def main():
    tasks = [
        asyncio.create_task(alpha_outer(), name="alpha"),
        asyncio.create_task(beta_outer(), name="beta"),
        asyncio.create_task(gamma_work(), name="gamma"),
    ]
    while len(started) < 3:
        await asyncio.sleep(0.001)
    ready(tasks=CHAINS)
    await asyncio.gather(*tasks)


asyncio.run(main())
