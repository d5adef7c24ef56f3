// `zero_reward_incorrect_groups` (NeMo Gym 07d6b0d proof_judge): the rollouts of one problem wait for
// each other until `expected_group_size` of them are verified; if the verifier scored every one of
// them 0, all get reward 0. A rollout stopped before scoring (format failure) counts as r_y = 0. As in
// NeMo Gym, a group that never fills (fewer rollouts, or one whose judge failed) keeps its members waiting.
interface Group {
  verifierRewards: number[];
  allZero?: boolean;
  done: Promise<void>;
  release: () => void;
}

export class IncorrectGroups {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly expectedSize: number) {}

  /** Records this rollout's r_y and resolves, once the group is complete, to whether the group scored 0 throughout. */
  async allZero(problem: string, verifierReward: number): Promise<boolean> {
    let group = this.groups.get(problem);
    if (!group) {
      let release!: () => void;
      const done = new Promise<void>((resolve) => (release = resolve));
      group = { verifierRewards: [], done, release };
      this.groups.set(problem, group);
    }
    group.verifierRewards.push(verifierReward);
    if (group.verifierRewards.length === this.expectedSize) {
      group.allZero = group.verifierRewards.every((r) => r === 0);
      this.groups.delete(problem);
      group.release();
    } else {
      await group.done;
    }
    return group.allZero!;
  }
}
