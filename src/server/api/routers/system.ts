import { health } from "../../app";
import { publicProcedure, router } from "../trpc";

export const systemRouter = router({
  health: publicProcedure.query(({ ctx }) => health(ctx.app)),
});
